"""Agent-side env functions: CRM fault injection for task set-up and CRM assertions (spec §6.1)."""

from __future__ import annotations

import math
from typing import Literal

from tau2.domains.telecom.billing import append_bill
from tau2.domains.telecom.clock import PAYMENT_TERM, PREVIOUS_MONTH_END, PREVIOUS_MONTH_START, TODAY
from tau2.domains.telecom.crm import Bill, BillStatus, LineItem, LineStatus
from tau2.domains.telecom.lookup import (
    customer_bills,
    find_bill,
    find_customer,
    require_owned_line,
    require_plan,
)
from tau2.domains.telecom.state import TelecomState
from tau2.errors import ErrorCode, ToolError
from tau2.world import Observation, Side, ToolSet

AGENT_ENV = ToolSet(Side.AGENT)

LineStatusValue = Literal["Active", "Suspended", "Pending Activation", "Closed"]


@AGENT_ENV.env_function()
def set_data_usage(state: TelecomState, customer_id: str, line_id: str, data_used_gb: float) -> None:
    """Set the data a line has used in the current cycle.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        data_used_gb: The new usage in GB (not negative).
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    if not (math.isfinite(data_used_gb) and data_used_gb >= 0):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"data_used_gb must be a finite number >= 0 (got {data_used_gb})."
        )
    line.data_used_gb = data_used_gb + 0.0  # + 0.0 turns -0.0 into 0.0, so equal states serialise equally


@AGENT_ENV.env_function()
def set_line_status(state: TelecomState, customer_id: str, line_id: str, status: LineStatusValue) -> None:
    """Set a line's status directly, e.g. a line never activated or one closed by mistake. A Suspended
    line is suspended from today; any other status clears the suspension date.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        status: The new line status.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    line.status = LineStatus(status)
    line.suspension_start_date = TODAY if line.status is LineStatus.SUSPENDED else None


@AGENT_ENV.env_function()
def suspend_line_for_overdue_bill(
    state: TelecomState, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
) -> None:
    """Suspend an active line for an unpaid bill: add last month's plan charge as a new Overdue bill.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's Active line.
        new_bill_id: An unused bill ID (prefix B) for the overdue bill.
        contract_ended: Also end the line's contract on the last day of the previous month.
    """
    customer, line = require_owned_line(state.crm, customer_id, line_id)
    if line.status != LineStatus.ACTIVE:
        raise ToolError(ErrorCode.INVALID_STATE, f"Line {line_id} is {line.status.value}, not Active.")
    plan = require_plan(state.crm, line)
    if not plan.price_per_month > 0:
        raise ToolError(ErrorCode.INVALID_STATE, f"Plan {plan.plan_id} has no monthly price to be overdue.")
    if any(bill.status == BillStatus.OVERDUE for bill in customer_bills(state.crm, customer)):
        raise ToolError(ErrorCode.CONFLICT, f"Customer {customer_id} already has an Overdue bill.")
    if not new_bill_id.startswith("B"):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Bill IDs start with B (got {new_bill_id!r}).")
    if find_bill(state.crm, new_bill_id) is not None:
        raise ToolError(ErrorCode.CONFLICT, f"Bill ID {new_bill_id} is already used.")
    charge = LineItem(
        description=f"{plan.name} - Line {line.line_id} (unpaid)",
        amount=plan.price_per_month,
        date=TODAY,
        item_type="Charge",
    )
    bill = Bill(
        bill_id=new_bill_id,
        customer_id=customer_id,
        period_start=PREVIOUS_MONTH_START,
        period_end=PREVIOUS_MONTH_END,
        issue_date=PREVIOUS_MONTH_START,
        due_date=PREVIOUS_MONTH_START + PAYMENT_TERM,
        total_due=charge.amount,
        line_items=[charge],
        status=BillStatus.OVERDUE,
    )
    append_bill(state.crm, customer, bill)
    line.status = LineStatus.SUSPENDED
    line.suspension_start_date = TODAY
    if contract_ended:
        line.contract_end_date = PREVIOUS_MONTH_END


@AGENT_ENV.assertion()
def assert_data_refueling_amount(
    state: TelecomState, customer_id: str, line_id: str, expected_amount: float
) -> Observation:
    """Whether the line's refuelled data this cycle equals `expected_amount` GB (within 1e-6); observes the
    refuelled GB.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        expected_amount: The expected refuelled GB.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    refuelled = line.data_refueling_gb
    return Observation(holds=abs(refuelled - expected_amount) < 1e-6, observed=refuelled)


@AGENT_ENV.assertion()
def assert_line_status(
    state: TelecomState, customer_id: str, line_id: str, expected_status: LineStatusValue
) -> Observation:
    """Whether the line's status equals `expected_status`; observes the status.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        expected_status: The expected line status.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    return Observation(holds=line.status == expected_status, observed=line.status.value)


@AGENT_ENV.assertion()
def assert_line_roaming_status(
    state: TelecomState, customer_id: str, line_id: str, expected_status: bool
) -> Observation:
    """Whether the carrier lets the line roam (its roaming setting in the CRM) equals `expected_status`;
    observes the setting.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        expected_status: Whether roaming should be enabled on the line.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    return Observation(holds=line.roaming_enabled == expected_status, observed=line.roaming_enabled)


@AGENT_ENV.assertion()
def assert_overdue_bill_exists(state: TelecomState, customer_id: str, overdue_bill_id: str) -> Observation:
    """Whether the customer has the bill and it is Overdue; false otherwise, never an error (Δ5). Observes
    the bill's status (null: no such bill) and whether it is among the customer's bills.

    Args:
        customer_id: The customer ID.
        overdue_bill_id: The bill ID.
    """
    customer = find_customer(state.crm, customer_id)
    bill = find_bill(state.crm, overdue_bill_id)
    owned = customer is not None and overdue_bill_id in customer.bill_ids
    status = None if bill is None else bill.status.value
    return Observation(
        holds=owned and status == BillStatus.OVERDUE, observed={"status": status, "customer_has_bill": owned}
    )


@AGENT_ENV.assertion()
def assert_no_overdue_bill(state: TelecomState, overdue_bill_id: str) -> Observation:
    """Whether the bill is settled: it does not exist or it is Paid. Observes the bill's status (null: no
    such bill).

    Args:
        overdue_bill_id: The bill ID.
    """
    bill = find_bill(state.crm, overdue_bill_id)
    status = None if bill is None else bill.status.value
    return Observation(holds=status in (None, BillStatus.PAID), observed={"status": status})
