"""The 13 agent tools (spec §4): results, effects, error codes, no-ops and atomicity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from telecom_support import (
    UNKNOWN_NUMBER,
    TelecomData,
    bill,
    customer,
    fails,
    line,
    ok,
    state,
)

from tau2.domains.telecom import BillStatus, LineStatus
from tau2.errors import ErrorCode
from tau2.world import World


def test_get_customer_by_phone_matches_primary_number_or_line(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    other_customer, primary_number = dataset.primary_number_only
    by_phone = "get_customer_by_phone"
    assert (
        ok(world, "agent", by_phone, phone_number=subscriber.phone_number)["customer_id"]
        == subscriber.customer_id
    )
    second = dataset.second_line.phone_number
    assert ok(world, "agent", by_phone, phone_number=second)["customer_id"] == subscriber.customer_id
    assert ok(world, "agent", by_phone, phone_number=primary_number)["customer_id"] == other_customer
    fails(world, "agent", by_phone, ErrorCode.NOT_FOUND, phone_number=UNKNOWN_NUMBER)


def test_customer_is_serialised_with_spec_field_names_and_iso_dates(
    world: World, dataset: TelecomData
) -> None:
    subscriber = dataset.subscriber
    record = ok(world, "agent", "get_customer_by_id", customer_id=subscriber.customer_id)
    assert record["created_at"] == subscriber.created_at
    assert record["address"]["zip_code"] == subscriber.zip_code
    assert record["payment_methods"][0]["method_type"] == subscriber.first_payment_method
    assert record["line_ids"] == list(subscriber.line_ids)
    fails(world, "agent", "get_customer_by_id", ErrorCode.NOT_FOUND, customer_id="C9999")


def test_get_customer_by_name_is_case_insensitive_and_needs_the_exact_dob(
    world: World, dataset: TelecomData
) -> None:
    subscriber = dataset.subscriber
    year, month, day = subscriber.date_of_birth.split("-")
    unpadded = f"{year}-{int(month)}-{int(day)}"
    assert unpadded != subscriber.date_of_birth, "the data set's date of birth has a zero-padded part"
    found = ok(
        world,
        "agent",
        "get_customer_by_name",
        full_name=subscriber.holder.swapcase(),
        dob=subscriber.date_of_birth,
    )
    assert [record["customer_id"] for record in found] == [subscriber.customer_id]
    assert ok(world, "agent", "get_customer_by_name", full_name=subscriber.holder, dob=unpadded) == []


@pytest.mark.parametrize("prefix", ["L", "D", "B", "C", "P"])
def test_get_details_by_id_dispatches_on_the_prefix(world: World, dataset: TelecomData, prefix: str) -> None:
    record_id, field, value = dataset.records_by_prefix[prefix]
    assert ok(world, "agent", "get_details_by_id", id=record_id)[field] == value


def test_get_details_by_id_errors(world: World) -> None:
    fails(world, "agent", "get_details_by_id", ErrorCode.INVALID_ARGUMENT, id="X1001")
    fails(world, "agent", "get_details_by_id", ErrorCode.INVALID_ARGUMENT, id="")
    fails(world, "agent", "get_details_by_id", ErrorCode.NOT_FOUND, id="L9999")


def test_get_bills_for_customer_sorts_by_issue_date_and_limits(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    bills = ok(world, "agent", "get_bills_for_customer", customer_id=subscriber.customer_id)
    assert [record["bill_id"] for record in bills] == list(subscriber.bills_newest_first)
    assert bills[-1]["line_items"][0]["date"] == subscriber.oldest_bill_first_item_date
    newest = ok(world, "agent", "get_bills_for_customer", customer_id=subscriber.customer_id, limit=1)
    assert [record["bill_id"] for record in newest] == [subscriber.bills_newest_first[0]]
    assert (
        ok(world, "agent", "get_bills_for_customer", customer_id=dataset.unverified_customer_id, limit=0)
        == []
    )
    fails(
        world,
        "agent",
        "get_bills_for_customer",
        ErrorCode.INVALID_ARGUMENT,
        customer_id=subscriber.customer_id,
        limit=-1,
    )
    fails(world, "agent", "get_bills_for_customer", ErrorCode.NOT_FOUND, customer_id="C9999")


def test_get_bills_ties_keep_bill_ids_order(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    newest, middle, oldest = subscriber.bills_newest_first
    customer(world, subscriber.customer_id).bill_ids = [oldest, newest, middle]
    for bill_id in (newest, middle):
        bill(world, bill_id).issue_date = bill(world, oldest).issue_date
    bills = ok(world, "agent", "get_bills_for_customer", customer_id=subscriber.customer_id)
    assert [record["bill_id"] for record in bills] == [oldest, newest, middle]


def test_get_data_usage(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    assert ok(world, "agent", "get_data_usage", **subscriber.ids) == {
        "line_id": subscriber.line_id,
        "data_used_gb": subscriber.data_used_gb,
        "data_limit_gb": subscriber.data_limit_gb,
        "data_refueling_gb": 0.0,
        "cycle_end_date": "2025-02-28",
    }


@pytest.mark.parametrize("tool", ["get_data_usage", "resume_line", "enable_roaming", "disable_roaming"])
def test_owned_line_checks(world: World, dataset: TelecomData, tool: str) -> None:
    subscriber = dataset.subscriber
    fails(world, "agent", tool, ErrorCode.NOT_FOUND, customer_id="C9999", line_id=subscriber.line_id)
    other = dataset.overdue.customer_id
    fails(world, "agent", tool, ErrorCode.NOT_OWNED, customer_id=other, line_id=subscriber.line_id)
    fails(world, "agent", tool, ErrorCode.NOT_OWNED, customer_id=subscriber.customer_id, line_id="L9999")
    customer(world, subscriber.customer_id).line_ids.append("L9999")
    fails(world, "agent", tool, ErrorCode.NOT_FOUND, customer_id=subscriber.customer_id, line_id="L9999")


def test_suspend_and_resume_line(world: World, dataset: TelecomData) -> None:
    ids = dataset.subscriber.ids
    result = ok(world, "agent", "suspend_line", reason="lost phone", **ids)
    assert "$5" in result["message"]
    assert result["line"]["status"] == "Suspended" and result["line"]["suspension_start_date"] == "2025-02-25"
    bills_before = len(state(world).crm.bills)
    fails(world, "agent", "suspend_line", ErrorCode.INVALID_STATE, reason="again", **ids)
    result = ok(world, "agent", "resume_line", **ids)
    assert result["line"]["status"] == "Active" and result["line"]["suspension_start_date"] is None
    fails(world, "agent", "resume_line", ErrorCode.INVALID_STATE, **ids)
    assert len(state(world).crm.bills) == bills_before, "no fee item or bill is created"


def test_resume_accepts_pending_activation_but_not_closed(world: World, dataset: TelecomData) -> None:
    second = dataset.second_line
    record = line(world, second.line_id)
    record.status = LineStatus.PENDING_ACTIVATION
    ok(world, "agent", "resume_line", **second.ids)
    record.status = LineStatus.CLOSED
    fails(world, "agent", "resume_line", ErrorCode.INVALID_STATE, **second.ids)


def test_send_payment_request(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    paid, issued = subscriber.paid_bill.bill_id, subscriber.issued_bill.bill_id
    request = "send_payment_request"
    fails(world, "agent", request, ErrorCode.NOT_FOUND, customer_id="C9999", bill_id=issued)
    others = dataset.overdue.overdue_bill_id
    fails(world, "agent", request, ErrorCode.NOT_OWNED, customer_id=subscriber.customer_id, bill_id=others)
    assert paid in ok(world, "agent", request, customer_id=subscriber.customer_id, bill_id=paid)["message"]
    assert bill(world, paid).status == BillStatus.AWAITING_PAYMENT, "no overdue check: policy only"
    fails(world, "agent", request, ErrorCode.CONFLICT, customer_id=subscriber.customer_id, bill_id=issued)
    fails(world, "agent", request, ErrorCode.CONFLICT, customer_id=subscriber.customer_id, bill_id="B9999")


def test_roaming_changes_and_no_ops(world: World, dataset: TelecomData) -> None:
    ids = dataset.subscriber.ids
    assert ok(world, "agent", "enable_roaming", **ids)["changed"] is False
    assert ok(world, "agent", "disable_roaming", **ids)["changed"] is True
    assert line(world, dataset.subscriber.line_id).roaming_enabled is False
    assert ok(world, "agent", "disable_roaming", **ids)["changed"] is False
    assert ok(world, "agent", "enable_roaming", **ids)["changed"] is True


def test_refuel_charges_the_first_draft_bill(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    price, draft_before = subscriber.refuel_price_per_gb, subscriber.draft_bill.total_due
    bill_count = len(state(world).crm.bills)
    result = ok(world, "agent", "refuel_data", gb_amount=2, **subscriber.ids)
    assert result["new_data_refueling_gb"] == 2.0 and result["charge"] == 2 * price
    draft = bill(world, subscriber.draft_bill.bill_id)
    assert draft.total_due == draft_before + 2 * price
    item = draft.line_items[-1]
    assert (item.amount, item.item_type, item.date.isoformat()) == (2 * price, "Charge", "2025-02-25")
    assert "2 GB" in item.description and f"${price:.2f}" in item.description
    ok(world, "agent", "refuel_data", gb_amount=0.5, **subscriber.ids)
    assert line(world, subscriber.line_id).data_refueling_gb == 2.5
    assert draft.total_due == draft_before + 2.5 * price
    assert len(state(world).crm.bills) == bill_count, "no bill is created while a Draft bill exists"


def test_refuel_opens_a_draft_bill_with_a_deterministic_id(world: World, dataset: TelecomData) -> None:
    overdue = dataset.overdue
    ok(world, "agent", "refuel_data", gb_amount=10.0, **overdue.ids)
    opened = state(world).crm.bills[-1]
    assert opened.bill_id == overdue.new_draft_bill_id
    assert customer(world, overdue.customer_id).bill_ids[-1] == overdue.new_draft_bill_id
    dates = [opened.period_start, opened.period_end, opened.issue_date, opened.due_date]
    assert [day.isoformat() for day in dates] == ["2025-03-01", "2025-03-31", "2025-03-01", "2025-03-15"]
    expected = (BillStatus.DRAFT, overdue.customer_id, 10.0 * overdue.refuel_price_per_gb)
    assert (opened.status, opened.customer_id, opened.total_due) == expected


def test_new_draft_bill_id_skips_taken_ids(world: World, dataset: TelecomData) -> None:
    overdue = dataset.overdue
    first = overdue.new_draft_bill_id
    for expected in (first, f"{first}-2", f"{first}-3"):
        ok(world, "agent", "refuel_data", gb_amount=1.0, **overdue.ids)
        draft = state(world).crm.bills[-1]
        assert (draft.bill_id, draft.status) == (expected, BillStatus.DRAFT)
        draft.status = BillStatus.ISSUED  # the next refuel needs a new Draft bill


@pytest.mark.parametrize("amount", [0, -1.0, float("nan"), float("inf"), 1e308])
def test_refuel_rejects_bad_amounts(world: World, dataset: TelecomData, amount: float) -> None:
    line(world, dataset.subscriber.line_id).data_refueling_gb = 1e308 if amount == 1e308 else 0.0
    fails(
        world, "agent", "refuel_data", ErrorCode.INVALID_ARGUMENT, gb_amount=amount, **dataset.subscriber.ids
    )


def test_refuel_needs_the_line_plan(world: World, dataset: TelecomData) -> None:
    line(world, dataset.subscriber.line_id).plan_id = "P9999"
    fails(world, "agent", "refuel_data", ErrorCode.NOT_FOUND, gb_amount=1.0, **dataset.subscriber.ids)
    fails(world, "agent", "get_data_usage", ErrorCode.NOT_FOUND, **dataset.subscriber.ids)


def test_transfer_changes_nothing(world: World) -> None:
    before = world.fingerprint()
    assert ok(world, "agent", "transfer_to_human_agents", summary="SIM locked")["message"]
    assert world.fingerprint() == before


SCHEMA_VIOLATIONS: list[tuple[str, Callable[[TelecomData], dict[str, Any]]]] = [
    ("get_customer_by_id", lambda data: {}),
    ("get_customer_by_id", lambda data: {"customer_id": 1001}),
    ("get_customer_by_id", lambda data: {"customer_id": data.subscriber.customer_id, "extra": 1}),
    ("refuel_data", lambda data: {**data.subscriber.ids, "gb_amount": "2"}),
    ("get_bills_for_customer", lambda data: {"customer_id": data.subscriber.customer_id, "limit": 2.5}),
]


@pytest.mark.parametrize(("tool", "arguments"), SCHEMA_VIOLATIONS)
def test_schema_violations_are_invalid_arguments(
    world: World, dataset: TelecomData, tool: str, arguments: Callable[[TelecomData], dict[str, Any]]
) -> None:
    fails(world, "agent", tool, ErrorCode.INVALID_ARGUMENT, **arguments(dataset))
