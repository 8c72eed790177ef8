"""Bill bookkeeping shared by agent tools and env functions: charges on Draft bills, new bills (spec §4)."""

from __future__ import annotations

import math

from tau2.domains.telecom.clock import NEXT_MONTH_END, NEXT_MONTH_START, PAYMENT_TERM, TODAY
from tau2.domains.telecom.crm import Bill, BillStatus, Customer, LineItem, TelecomDB
from tau2.domains.telecom.lookup import customer_bills
from tau2.errors import ErrorCode, ToolError


def add_charge(crm: TelecomDB, customer: Customer, description: str, amount: float) -> Bill:
    """Post a dated charge (or credit, if negative) on the customer's first Draft bill, opening one if needed.

    Fails with `invalid_argument`, changing nothing, when the bill total would overflow.
    """
    bill = next((bill for bill in customer_bills(crm, customer) if bill.status == BillStatus.DRAFT), None)
    if not math.isfinite((0.0 if bill is None else bill.total_due) + amount):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"A charge of {amount} is out of range.")
    if bill is None:
        bill = Bill(
            bill_id=_next_draft_id(crm, customer),
            customer_id=customer.customer_id,
            period_start=NEXT_MONTH_START,
            period_end=NEXT_MONTH_END,
            issue_date=NEXT_MONTH_START,
            due_date=NEXT_MONTH_START + PAYMENT_TERM,
            total_due=0.0,
        )
        append_bill(crm, customer, bill)
    item_type = "Credit" if amount < 0 else "Charge"
    bill.line_items.append(LineItem(description=description, amount=amount, date=TODAY, item_type=item_type))
    bill.total_due += amount
    return bill


def append_bill(crm: TelecomDB, customer: Customer, bill: Bill) -> None:
    """Record a new bill in the database and in the customer's bill list."""
    crm.bills.append(bill)
    customer.bill_ids.append(bill.bill_id)


def _next_draft_id(crm: TelecomDB, customer: Customer) -> str:
    """Deterministic ID of a new Draft bill: `B<customer number>-<YYYYMM>`, then `-2`, `-3`, … (Δ2)."""
    base = f"B{customer.customer_id.removeprefix('C')}-{NEXT_MONTH_START:%Y%m}"
    taken = {bill.bill_id for bill in crm.bills}
    candidate, suffix = base, 1
    while candidate in taken:
        suffix += 1
        candidate = f"{base}-{suffix}"
    return candidate
