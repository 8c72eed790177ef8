"""The 13 back-office tools of the agent seat (spec §4). Each check runs before any change, so a failing
call changes nothing."""

from __future__ import annotations

import math

from tau2.domains.telecom.billing import add_charge
from tau2.domains.telecom.clock import CURRENT_MONTH_END, TODAY
from tau2.domains.telecom.crm import Bill, BillStatus, Customer, Device, Line, LineStatus, Plan
from tau2.domains.telecom.lookup import (
    customer_bills,
    customer_for_number,
    find_bill,
    find_customer,
    find_device,
    find_line,
    find_plan,
    require_customer,
    require_owned_line,
    require_plan,
)
from tau2.domains.telecom.state import TelecomState
from tau2.errors import ErrorCode, ToolError
from tau2.world import Side, ToolKind, ToolSet

AGENT_TOOLS = ToolSet(Side.AGENT)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_customer_by_phone(state: TelecomState, phone_number: str) -> Customer:
    """Find the customer who owns a phone number, either as their primary contact number or as one of
    their lines. Use it to identify the caller from the number they give.

    Args:
        phone_number: The phone number, formatted like 555-123-2002.
    """
    customer = customer_for_number(state.crm, phone_number)
    if customer is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"No customer found with phone number {phone_number!r}.")
    return customer


@AGENT_TOOLS.tool(ToolKind.READ)
def get_customer_by_id(state: TelecomState, customer_id: str) -> Customer:
    """Get a customer's full record (contact details, account status, lines, bills) by customer ID.

    Args:
        customer_id: The customer ID, such as C1001.
    """
    return require_customer(state.crm, customer_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_customer_by_name(state: TelecomState, full_name: str, dob: str) -> list[Customer]:
    """Find customers by full name and date of birth; both are needed to identify a caller by name.
    Returns a list, empty when nobody matches.

    Args:
        full_name: The customer's full name (case does not matter).
        dob: The date of birth as YYYY-MM-DD.
    """
    wanted = full_name.casefold()
    return [
        customer
        for customer in state.crm.customers
        if customer.full_name.casefold() == wanted and customer.date_of_birth == dob
    ]


@AGENT_TOOLS.tool(ToolKind.READ)
def get_details_by_id(state: TelecomState, id: str) -> Line | Device | Bill | Customer | Plan:
    """Get the record for any ID: a line (ID starting with L), device (D), bill (B), customer (C) or plan (P).

    Args:
        id: The ID to look up; its first letter selects the kind of record.
    """
    finders = {"L": find_line, "D": find_device, "B": find_bill, "C": find_customer, "P": find_plan}
    finder = finders.get(id[:1])
    if finder is None:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Unknown ID format {id!r}: expected a prefix L, D, B, C or P."
        )
    record = finder(state.crm, id)
    if record is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"No record with ID {id!r}.")
    return record


@AGENT_TOOLS.tool(ToolKind.READ)
def get_bills_for_customer(state: TelecomState, customer_id: str, limit: int = 12) -> list[Bill]:
    """List a customer's bills, most recently issued first.

    Args:
        customer_id: The customer ID.
        limit: The maximum number of bills to return (default 12).
    """
    if limit < 0:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"limit must not be negative (got {limit}).")
    customer = require_customer(state.crm, customer_id)
    bills = sorted(customer_bills(state.crm, customer), key=lambda bill: bill.issue_date, reverse=True)
    return bills[:limit]


@AGENT_TOOLS.tool(ToolKind.READ)
def get_data_usage(state: TelecomState, customer_id: str, line_id: str) -> dict[str, object]:
    """Show a line's mobile data usage in the current billing cycle: used, plan limit, extra data
    refuelled, and when the cycle ends.

    Args:
        customer_id: The customer ID.
        line_id: The ID of one of the customer's lines.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    plan = require_plan(state.crm, line)
    return {
        "line_id": line.line_id,
        "data_used_gb": line.data_used_gb,
        "data_limit_gb": plan.data_limit_gb,
        "data_refueling_gb": line.data_refueling_gb,
        "cycle_end_date": CURRENT_MONTH_END,
    }


@AGENT_TOOLS.tool(ToolKind.WRITE)
def suspend_line(state: TelecomState, customer_id: str, line_id: str, reason: str) -> dict[str, object]:
    """Suspend an active line. A $5 monthly holding fee applies while it is suspended.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line to suspend.
        reason: Why the line is being suspended.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    if line.status != LineStatus.ACTIVE:
        raise ToolError(
            ErrorCode.INVALID_STATE,
            f"Line {line_id} is {line.status.value}; only an Active line can be suspended.",
        )
    line.status = LineStatus.SUSPENDED
    line.suspension_start_date = TODAY
    return {
        "message": f"Line {line_id} is suspended. A holding fee of $5.00 per month applies while suspended.",
        "line": line,
    }


@AGENT_TOOLS.tool(ToolKind.WRITE)
def resume_line(state: TelecomState, customer_id: str, line_id: str) -> dict[str, object]:
    """Reactivate a suspended (or pending) line. The phone regains service only after it re-registers on
    the network, for example after a restart.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line to resume.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    if line.status not in (LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION):
        raise ToolError(
            ErrorCode.INVALID_STATE,
            f"Line {line_id} is {line.status.value}; only Suspended or Pending Activation lines can resume.",
        )
    line.status = LineStatus.ACTIVE
    line.suspension_start_date = None
    return {"message": f"Line {line_id} is active again. The phone must restart to reconnect.", "line": line}


@AGENT_TOOLS.tool(ToolKind.WRITE)
def send_payment_request(state: TelecomState, customer_id: str, bill_id: str) -> dict[str, object]:
    """Ask the customer to pay a bill: it becomes Awaiting Payment and appears on their phone, where they
    can pay it. Only one bill per customer can await payment at a time.

    Args:
        customer_id: The customer ID.
        bill_id: The ID of the customer's bill to request payment for.
    """
    customer = require_customer(state.crm, customer_id)
    bills = customer_bills(state.crm, customer)
    awaiting = next((bill for bill in bills if bill.status == BillStatus.AWAITING_PAYMENT), None)
    if awaiting is not None:
        raise ToolError(
            ErrorCode.CONFLICT,
            f"Bill {awaiting.bill_id} of customer {customer_id} is already awaiting payment.",
        )
    if bill_id not in customer.bill_ids:
        raise ToolError(ErrorCode.NOT_OWNED, f"Bill {bill_id!r} does not belong to customer {customer_id!r}.")
    bill = find_bill(state.crm, bill_id)
    if bill is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Bill {bill_id!r} not found.")
    bill.status = BillStatus.AWAITING_PAYMENT
    return {
        "message": f"Payment request for bill {bill_id} (${bill.total_due:.2f}) sent to the customer's phone."
    }


def _set_roaming(state: TelecomState, customer_id: str, line_id: str, enabled: bool) -> dict[str, object]:
    """Set a line's carrier-side roaming permission; already in that state is a successful no-op."""
    _, line = require_owned_line(state.crm, customer_id, line_id)
    word = "enabled" if enabled else "disabled"
    if line.roaming_enabled == enabled:
        return {"message": f"Roaming is already {word} on line {line_id}.", "changed": False}
    line.roaming_enabled = enabled
    return {"message": f"Roaming is now {word} on line {line_id}.", "changed": True}


@AGENT_TOOLS.tool(ToolKind.WRITE)
def enable_roaming(state: TelecomState, customer_id: str, line_id: str) -> dict[str, object]:
    """Allow a line to use partner networks abroad (carrier side; the phone's own data-roaming switch is
    separate).

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
    """
    return _set_roaming(state, customer_id, line_id, True)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def disable_roaming(state: TelecomState, customer_id: str, line_id: str) -> dict[str, object]:
    """Stop a line from using partner networks abroad (carrier side).

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
    """
    return _set_roaming(state, customer_id, line_id, False)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def refuel_data(state: TelecomState, customer_id: str, line_id: str, gb_amount: float) -> dict[str, object]:
    """Add extra mobile data to a line for the current cycle. The price per GB of the line's plan is
    charged on the customer's next (draft) bill.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        gb_amount: The amount of data to add, in GB (more than 0).
    """
    customer, line = require_owned_line(state.crm, customer_id, line_id)
    if not (math.isfinite(gb_amount) and gb_amount > 0):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"gb_amount must be a positive number of GB (got {gb_amount})."
        )
    plan = require_plan(state.crm, line)
    price = plan.data_refueling_price_per_gb
    charge = gb_amount * price
    if not math.isfinite(line.data_refueling_gb + gb_amount):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"gb_amount {gb_amount} is out of range.")
    add_charge(
        state.crm,
        customer,
        f"Data refuel: {gb_amount:g} GB at ${price:.2f}/GB - Line {line.phone_number}",
        charge,
    )
    line.data_refueling_gb += gb_amount
    return {
        "message": f"Added {gb_amount:g} GB to line {line_id} for ${charge:.2f}.",
        "new_data_refueling_gb": line.data_refueling_gb,
        "charge": charge,
    }


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def transfer_to_human_agents(state: TelecomState, summary: str) -> dict[str, object]:
    """Hand the conversation to a human agent. Use it only when the request cannot be handled with your
    tools and the policy; then tell the customer they are being transferred.

    Args:
        summary: A short summary of the customer's issue and what was tried.
    """
    return {"message": "Transfer to a human agent initiated."}
