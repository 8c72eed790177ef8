"""The 13 agent tools (spec §4): results, effects, error codes, no-ops and atomicity."""

from __future__ import annotations

import pytest
from telecom_support import C1001_L1002, fails, ok, state

from tau2.domains.telecom import BillStatus, LineStatus
from tau2.errors import ErrorCode
from tau2.world import World


def test_get_customer_by_phone_matches_primary_number_or_line(world: World) -> None:
    assert ok(world, "agent", "get_customer_by_phone", phone_number="555-123-2002")["customer_id"] == "C1001"
    assert ok(world, "agent", "get_customer_by_phone", phone_number="555-123-2003")["customer_id"] == "C1001"
    assert ok(world, "agent", "get_customer_by_phone", phone_number="555-123-1003")["customer_id"] == "C1003"
    fails(world, "agent", "get_customer_by_phone", ErrorCode.NOT_FOUND, phone_number="555-000-0000")


def test_customer_is_serialised_with_spec_field_names_and_iso_dates(world: World) -> None:
    customer = ok(world, "agent", "get_customer_by_id", customer_id="C1001")
    assert customer["created_at"] == "2025-01-15T10:30:00"
    assert customer["address"]["zip_code"] == "90210"
    assert customer["payment_methods"][0]["method_type"] == "Credit Card"
    assert customer["line_ids"] == ["L1001", "L1002", "L1003"]
    fails(world, "agent", "get_customer_by_id", ErrorCode.NOT_FOUND, customer_id="C9999")


def test_get_customer_by_name_is_case_insensitive_and_needs_the_exact_dob(world: World) -> None:
    found = ok(world, "agent", "get_customer_by_name", full_name="jOHN smith", dob="1985-06-15")
    assert [customer["customer_id"] for customer in found] == ["C1001"]
    assert ok(world, "agent", "get_customer_by_name", full_name="John Smith", dob="1985-6-15") == []


@pytest.mark.parametrize(
    ("record_id", "field", "value"),
    [
        ("L1002", "phone_number", "555-123-2002"),
        ("D1002", "last_esim_transfer_date", "2025-01-20T09:30:00"),
        ("B1002", "status", "Issued"),
        ("C1004", "account_status", "Pending Verification"),
        ("P1002", "data_refueling_price_per_gb", 2.0),
    ],
)
def test_get_details_by_id_dispatches_on_the_prefix(
    world: World, record_id: str, field: str, value: object
) -> None:
    assert ok(world, "agent", "get_details_by_id", id=record_id)[field] == value


def test_get_details_by_id_errors(world: World) -> None:
    fails(world, "agent", "get_details_by_id", ErrorCode.INVALID_ARGUMENT, id="X1001")
    fails(world, "agent", "get_details_by_id", ErrorCode.INVALID_ARGUMENT, id="")
    fails(world, "agent", "get_details_by_id", ErrorCode.NOT_FOUND, id="L9999")


def test_get_bills_for_customer_sorts_by_issue_date_and_limits(world: World) -> None:
    bills = ok(world, "agent", "get_bills_for_customer", customer_id="C1001")
    assert [bill["bill_id"] for bill in bills] == ["B1003", "B1002", "B1001"]
    assert bills[2]["line_items"][0]["date"] == "2025-01-05"
    assert [
        bill["bill_id"] for bill in ok(world, "agent", "get_bills_for_customer", customer_id="C1001", limit=1)
    ] == ["B1003"]
    assert ok(world, "agent", "get_bills_for_customer", customer_id="C1004", limit=0) == []
    fails(world, "agent", "get_bills_for_customer", ErrorCode.INVALID_ARGUMENT, customer_id="C1001", limit=-1)
    fails(world, "agent", "get_bills_for_customer", ErrorCode.NOT_FOUND, customer_id="C9999")


def test_get_bills_ties_keep_bill_ids_order(world: World) -> None:
    customer = state(world).crm.customers[0]
    customer.bill_ids = ["B1001", "B1003", "B1002"]
    for bill in state(world).crm.bills[:3]:
        bill.issue_date = state(world).crm.bills[0].issue_date
    bills = ok(world, "agent", "get_bills_for_customer", customer_id="C1001")
    assert [bill["bill_id"] for bill in bills] == ["B1001", "B1003", "B1002"]


def test_get_data_usage(world: World) -> None:
    assert ok(world, "agent", "get_data_usage", **C1001_L1002) == {
        "line_id": "L1002",
        "data_used_gb": 8.7,
        "data_limit_gb": 15.0,
        "data_refueling_gb": 0.0,
        "cycle_end_date": "2025-02-28",
    }


@pytest.mark.parametrize("tool", ["get_data_usage", "resume_line", "enable_roaming", "disable_roaming"])
def test_owned_line_checks(world: World, tool: str) -> None:
    fails(world, "agent", tool, ErrorCode.NOT_FOUND, customer_id="C9999", line_id="L1002")
    fails(world, "agent", tool, ErrorCode.NOT_OWNED, customer_id="C1002", line_id="L1002")
    fails(world, "agent", tool, ErrorCode.NOT_OWNED, customer_id="C1001", line_id="L9999")
    state(world).crm.customers[0].line_ids.append("L9999")
    fails(world, "agent", tool, ErrorCode.NOT_FOUND, customer_id="C1001", line_id="L9999")


def test_suspend_and_resume_line(world: World) -> None:
    result = ok(world, "agent", "suspend_line", reason="lost phone", **C1001_L1002)
    assert "$5" in result["message"]
    assert result["line"]["status"] == "Suspended" and result["line"]["suspension_start_date"] == "2025-02-25"
    bills_before = len(state(world).crm.bills)
    fails(world, "agent", "suspend_line", ErrorCode.INVALID_STATE, reason="again", **C1001_L1002)
    result = ok(world, "agent", "resume_line", **C1001_L1002)
    assert result["line"]["status"] == "Active" and result["line"]["suspension_start_date"] is None
    fails(world, "agent", "resume_line", ErrorCode.INVALID_STATE, **C1001_L1002)
    assert len(state(world).crm.bills) == bills_before, "no fee item or bill is created"


def test_resume_accepts_pending_activation_but_not_closed(world: World) -> None:
    line = state(world).crm.lines[0]
    line.status = LineStatus.PENDING_ACTIVATION
    ok(world, "agent", "resume_line", customer_id="C1001", line_id="L1001")
    line.status = LineStatus.CLOSED
    fails(world, "agent", "resume_line", ErrorCode.INVALID_STATE, customer_id="C1001", line_id="L1001")


def test_send_payment_request(world: World) -> None:
    fails(world, "agent", "send_payment_request", ErrorCode.NOT_FOUND, customer_id="C9999", bill_id="B1002")
    fails(world, "agent", "send_payment_request", ErrorCode.NOT_OWNED, customer_id="C1001", bill_id="B1005")
    assert (
        "B1001" in ok(world, "agent", "send_payment_request", customer_id="C1001", bill_id="B1001")["message"]
    )
    assert state(world).crm.bills[0].status == BillStatus.AWAITING_PAYMENT, "no overdue check: policy only"
    fails(world, "agent", "send_payment_request", ErrorCode.CONFLICT, customer_id="C1001", bill_id="B1002")
    fails(world, "agent", "send_payment_request", ErrorCode.CONFLICT, customer_id="C1001", bill_id="B9999")


def test_roaming_changes_and_no_ops(world: World) -> None:
    assert ok(world, "agent", "enable_roaming", **C1001_L1002)["changed"] is False
    assert ok(world, "agent", "disable_roaming", **C1001_L1002)["changed"] is True
    assert state(world).crm.lines[1].roaming_enabled is False
    assert ok(world, "agent", "disable_roaming", **C1001_L1002)["changed"] is False
    assert ok(world, "agent", "enable_roaming", **C1001_L1002)["changed"] is True


def test_refuel_charges_the_first_draft_bill(world: World) -> None:
    result = ok(world, "agent", "refuel_data", gb_amount=2, **C1001_L1002)
    assert result["new_data_refueling_gb"] == 2.0 and result["charge"] == 4.0
    draft = next(bill for bill in state(world).crm.bills if bill.bill_id == "B1003")
    assert draft.total_due == 4.0
    item = draft.line_items[-1]
    assert (item.amount, item.item_type, item.date.isoformat()) == (4.0, "Charge", "2025-02-25")
    assert "2 GB" in item.description and "$2.00" in item.description
    ok(world, "agent", "refuel_data", gb_amount=0.5, **C1001_L1002)
    assert state(world).crm.lines[1].data_refueling_gb == 2.5 and draft.total_due == 5.0
    assert len(state(world).crm.bills) == 6


def test_refuel_opens_a_draft_bill_with_a_deterministic_id(world: World) -> None:
    ok(world, "agent", "refuel_data", customer_id="C1002", line_id="L1004", gb_amount=10.0)
    bill = state(world).crm.bills[-1]
    assert bill.bill_id == "B1002-202503"
    assert state(world).crm.customers[1].bill_ids[-1] == "B1002-202503"
    dates = [bill.period_start, bill.period_end, bill.issue_date, bill.due_date]
    assert [day.isoformat() for day in dates] == ["2025-03-01", "2025-03-31", "2025-03-01", "2025-03-15"]
    assert (bill.status, bill.customer_id, bill.total_due) == (BillStatus.DRAFT, "C1002", 1.0)


def test_new_draft_bill_id_skips_taken_ids(world: World) -> None:
    for expected in ("B1002-202503", "B1002-202503-2", "B1002-202503-3"):
        ok(world, "agent", "refuel_data", customer_id="C1002", line_id="L1004", gb_amount=1.0)
        draft = state(world).crm.bills[-1]
        assert (draft.bill_id, draft.status) == (expected, BillStatus.DRAFT)
        draft.status = BillStatus.ISSUED  # the next refuel needs a new Draft bill


@pytest.mark.parametrize("amount", [0, -1.0, float("nan"), float("inf"), 1e308])
def test_refuel_rejects_bad_amounts(world: World, amount: float) -> None:
    state(world).crm.lines[1].data_refueling_gb = 1e308 if amount == 1e308 else 0.0
    fails(world, "agent", "refuel_data", ErrorCode.INVALID_ARGUMENT, gb_amount=amount, **C1001_L1002)


def test_refuel_needs_the_line_plan(world: World) -> None:
    state(world).crm.lines[1].plan_id = "P9999"
    fails(world, "agent", "refuel_data", ErrorCode.NOT_FOUND, gb_amount=1.0, **C1001_L1002)
    fails(world, "agent", "get_data_usage", ErrorCode.NOT_FOUND, **C1001_L1002)


def test_transfer_changes_nothing(world: World) -> None:
    before = world.fingerprint()
    assert ok(world, "agent", "transfer_to_human_agents", summary="SIM locked")["message"]
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get_customer_by_id", {}),
        ("get_customer_by_id", {"customer_id": 1001}),
        ("get_customer_by_id", {"customer_id": "C1001", "extra": 1}),
        ("refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": "2"}),
        ("get_bills_for_customer", {"customer_id": "C1001", "limit": 2.5}),
    ],
)
def test_schema_violations_are_invalid_arguments(
    world: World, tool: str, arguments: dict[str, object]
) -> None:
    fails(world, "agent", tool, ErrorCode.INVALID_ARGUMENT, **arguments)
