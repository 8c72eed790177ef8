"""Binding of the phone to a CRM line and the coupled facts C1–C4 as derived reads (spec §3).

While the phone is bound, the four coupled facts are computed from the CRM on every read, so no operation
can leave them stale; while unbound, the values stored in `surroundings` are used. Every predicate and tool
reads them through the functions below.
"""

from __future__ import annotations

from tau2.domains.telecom.crm import BillStatus, Customer, Line, LineStatus
from tau2.domains.telecom.lookup import (
    customer_bills,
    customer_for_number,
    find_bill,
    find_plan,
    line_for_number,
)
from tau2.domains.telecom.phone import PaymentRequest, Surroundings
from tau2.domains.telecom.state import TelecomState
from tau2.errors import ErrorCode, ToolError

_COUPLED_DEFAULTS = {
    name: Surroundings.model_fields[name].default
    for name in ("roaming_allowed", "mobile_data_usage_exceeded", "line_active", "payment_request")
}


def bound_line(state: TelecomState) -> Line | None:
    """The first CRM line with the phone's number; None while unbound."""
    number = state.surroundings.phone_number
    return None if number is None else line_for_number(state.crm, number)


def bound_customer(state: TelecomState) -> Customer | None:
    """The first customer owning the phone's number (as primary number or line); None while unbound."""
    number = state.surroundings.phone_number
    return None if number is None else customer_for_number(state.crm, number)


def bind(state: TelecomState, name: str, phone_number: str) -> None:
    """Bind the phone to the line with `phone_number` (`not_found`, changing nothing, if there is none).

    The stored coupled fields are reset to their defaults: from now on they are derived from the CRM.
    """
    if line_for_number(state.crm, phone_number) is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"No line has the phone number {phone_number!r}.")
    state.surroundings.name = name
    state.surroundings.phone_number = phone_number
    clear_stored_coupling(state.surroundings)


def clear_stored_coupling(surroundings: Surroundings) -> None:
    """Reset the stored coupled fields to their defaults: while bound they are derived, not stored."""
    for field, default in _COUPLED_DEFAULTS.items():
        setattr(surroundings, field, default)


def line_active(state: TelecomState) -> bool:
    """C1: whether the bound line is `Active` (the stored value while unbound)."""
    line = bound_line(state)
    return state.surroundings.line_active if line is None else line.status == LineStatus.ACTIVE


def roaming_allowed(state: TelecomState) -> bool:
    """C2: whether the carrier lets the bound line roam (the stored value while unbound)."""
    line = bound_line(state)
    return state.surroundings.roaming_allowed if line is None else line.roaming_enabled


def usage_exceeded(state: TelecomState) -> bool:
    """C3: whether the bound line used its plan allowance plus refuelled data (stored value while unbound)."""
    line = bound_line(state)
    if line is None:
        return state.surroundings.mobile_data_usage_exceeded
    plan = find_plan(state.crm, line.plan_id)
    return plan is not None and line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb


def payment_request(state: TelecomState) -> PaymentRequest | None:
    """C4: the bound customer's first `Awaiting Payment` bill as an unpaid request (stored if unbound)."""
    if bound_line(state) is None:
        return state.surroundings.payment_request
    customer = bound_customer(state)
    if customer is None:
        return None
    for bill in customer_bills(state.crm, customer):
        if bill.status == BillStatus.AWAITING_PAYMENT:
            return PaymentRequest(bill_id=bill.bill_id, amount_due=bill.total_due)
    return None


def surroundings_view(state: TelecomState) -> Surroundings:
    """A copy of the surroundings with the coupled fields as currently derived."""
    return state.surroundings.model_copy(
        update={
            "roaming_allowed": roaming_allowed(state),
            "mobile_data_usage_exceeded": usage_exceeded(state),
            "line_active": line_active(state),
            "payment_request": payment_request(state),
        }
    )


def settle_payment_request(state: TelecomState) -> PaymentRequest:
    """C5: pay the pending request; the bound customer's bill becomes `Paid` at once (`invalid_state` if
    nothing is pending). While unbound only the stored request is marked paid."""
    request = payment_request(state)
    if request is None or request.paid:
        raise ToolError(ErrorCode.INVALID_STATE, "There is no pending payment request.")
    if bound_line(state) is None:
        request.paid = True  # the stored request itself
        return request
    bill = find_bill(state.crm, request.bill_id)
    if bill is not None:  # always: a bound request is derived from this bill
        bill.status = BillStatus.PAID
    return request
