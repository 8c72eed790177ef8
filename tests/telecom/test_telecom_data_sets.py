"""Each data set really has the situations the telecom tests name: a failure here points at the record that no
longer plays its part, instead of at a tool test that then fails for an unclear reason."""

from __future__ import annotations

from telecom_support import (
    UNKNOWN_NUMBER,
    UNUSED_BILL_ID,
    LineOf,
    TelecomData,
    bill,
    customer,
    line,
    plan,
)

from tau2.domains.telecom import AccountStatus, BillStatus, LineStatus, TelecomState, load_state


def owned(loaded: TelecomState, situation: LineOf) -> None:
    """The situation's line exists, has its number and belongs to its customer of that name."""
    owner = customer(loaded, situation.customer_id)
    assert owner.full_name == situation.holder
    assert situation.line_id in owner.line_ids
    assert line(loaded, situation.line_id).phone_number == situation.phone_number


def statuses(loaded: TelecomState, customer_id: str) -> list[BillStatus]:
    """The statuses of a customer's bills."""
    return [bill(loaded, bill_id).status for bill_id in customer(loaded, customer_id).bill_ids]


def test_the_subscriber(dataset: TelecomData) -> None:
    loaded, subscriber = load_state(dataset.directory), dataset.subscriber
    owned(loaded, subscriber)
    owner, record = customer(loaded, subscriber.customer_id), line(loaded, subscriber.line_id)
    assert owner.phone_number == subscriber.phone_number and owner.account_status == AccountStatus.ACTIVE
    assert (owner.date_of_birth, owner.address.zip_code) == (subscriber.date_of_birth, subscriber.zip_code)
    assert owner.line_ids == list(subscriber.line_ids)
    assert (record.status, record.roaming_enabled, record.plan_id) == (
        LineStatus.ACTIVE,
        True,
        subscriber.plan_id,
    )
    assert (record.data_used_gb, record.data_refueling_gb) == (subscriber.data_used_gb, 0.0)
    assert record.contract_end_date is not None
    assert record.contract_end_date.isoformat() == subscriber.contract_end_date
    priced = plan(loaded, subscriber.plan_id)
    assert (priced.data_limit_gb, priced.price_per_month, priced.data_refueling_price_per_gb) == (
        subscriber.data_limit_gb,
        subscriber.plan_price,
        subscriber.refuel_price_per_gb,
    )
    assert subscriber.data_used_gb < subscriber.data_limit_gb and subscriber.plan_price > 0
    assert sorted(owner.bill_ids) == sorted(subscriber.bills_newest_first)
    for expected, status in (
        (subscriber.paid_bill, BillStatus.PAID),
        (subscriber.issued_bill, BillStatus.ISSUED),
        (subscriber.draft_bill, BillStatus.DRAFT),
    ):
        assert (bill(loaded, expected.bill_id).status, bill(loaded, expected.bill_id).total_due) == (
            status,
            expected.total_due,
        )
    assert statuses(loaded, subscriber.customer_id).count(BillStatus.DRAFT) == 1
    assert not {BillStatus.OVERDUE, BillStatus.AWAITING_PAYMENT} & set(
        statuses(loaded, subscriber.customer_id)
    )


def test_the_other_lines(dataset: TelecomData) -> None:
    loaded = load_state(dataset.directory)
    second, suspended, roaming = dataset.second_line, dataset.suspended_line, dataset.roaming_line
    for situation in (second, suspended, roaming):
        owned(loaded, situation)
    assert (
        second.customer_id == dataset.subscriber.customer_id and second.line_id != dataset.subscriber.line_id
    )
    assert customer(loaded, second.customer_id).phone_number != second.phone_number
    stopped = line(loaded, suspended.line_id)
    assert (stopped.status, stopped.roaming_enabled) == (LineStatus.SUSPENDED, False)
    assert customer(loaded, suspended.customer_id).account_status == AccountStatus.ACTIVE
    assert BillStatus.OVERDUE not in statuses(loaded, suspended.customer_id)
    travelling = line(loaded, roaming.line_id)
    assert roaming.customer_id != dataset.subscriber.customer_id
    assert (travelling.status, travelling.roaming_enabled) == (LineStatus.ACTIVE, True)
    assert travelling.data_used_gb < plan(loaded, travelling.plan_id).data_limit_gb


def test_the_overdue_customer(dataset: TelecomData) -> None:
    loaded, overdue = load_state(dataset.directory), dataset.overdue
    owned(loaded, overdue)
    assert overdue.customer_id != dataset.subscriber.customer_id
    assert line(loaded, overdue.line_id).status == LineStatus.ACTIVE
    owed = bill(loaded, overdue.overdue_bill_id)
    assert (owed.customer_id, owed.status) == (overdue.customer_id, BillStatus.OVERDUE)
    assert BillStatus.DRAFT not in statuses(loaded, overdue.customer_id)
    priced = plan(loaded, line(loaded, overdue.line_id).plan_id)
    assert priced.data_refueling_price_per_gb == overdue.refuel_price_per_gb
    assert overdue.new_draft_bill_id == f"B{overdue.customer_id[1:]}-202503"


def test_the_customers_and_ids_without_records(dataset: TelecomData) -> None:
    loaded = load_state(dataset.directory)
    customer_id, number = dataset.primary_number_only
    assert customer(loaded, customer_id).phone_number == number
    unverified = customer(loaded, dataset.unverified_customer_id)
    assert unverified.account_status == AccountStatus.PENDING_VERIFICATION
    assert (unverified.line_ids, unverified.bill_ids) == ([], [])
    numbers = {record.phone_number for record in loaded.crm.lines}
    assert number not in numbers
    assert UNKNOWN_NUMBER not in numbers | {record.phone_number for record in loaded.crm.customers}
    bill_ids = {record.bill_id for record in loaded.crm.bills}
    assert UNUSED_BILL_ID not in bill_ids and dataset.overdue.new_draft_bill_id not in bill_ids
