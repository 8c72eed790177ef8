"""The extended domain's agent tools: plan changes, autopay and device activation (policy Part B). Each
check runs before any change, so a failing call changes nothing."""

from __future__ import annotations

from tau2.domains.telecom.clock import NOW, TODAY, month_start
from tau2.domains.telecom.crm import LineStatus, Plan
from tau2.domains.telecom.extended_state import ExtendedTelecomState
from tau2.domains.telecom.lookup import require_customer, require_owned_line
from tau2.domains.telecom.services import has_expired, owned_device, require_plan_id, stored_method
from tau2.errors import ErrorCode, ToolError
from tau2.world import Side, ToolKind, ToolSet

EXTENDED_AGENT_TOOLS = ToolSet(Side.AGENT)


@EXTENDED_AGENT_TOOLS.tool(ToolKind.READ)
def get_available_plans(state: ExtendedTelecomState) -> list[Plan]:
    """List every plan the carrier offers, with its data allowance and prices."""
    return list(state.crm.plans)


@EXTENDED_AGENT_TOOLS.tool(ToolKind.WRITE)
def change_plan(
    state: ExtendedTelecomState, customer_id: str, line_id: str, plan_id: str
) -> dict[str, object]:
    """Move a line to another plan, effective at once: the new plan's data allowance applies to this cycle
    and its price to the next bill. A line's plan can change once per billing cycle.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        plan_id: The ID of the plan to move the line to.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    plan = require_plan_id(state, plan_id)
    if line.status is LineStatus.CLOSED:
        raise ToolError(ErrorCode.INVALID_STATE, f"Line {line_id} is Closed; its plan cannot change.")
    if line.plan_id == plan_id:
        raise ToolError(ErrorCode.INVALID_STATE, f"Line {line_id} is already on plan {plan_id}.")
    changed = line.last_plan_change_date
    if changed is not None and changed >= month_start(TODAY):
        raise ToolError(
            ErrorCode.INVALID_STATE,
            f"Line {line_id} already changed plan this billing cycle (on {changed.isoformat()}).",
        )
    line.plan_id = plan_id
    line.last_plan_change_date = TODAY
    return {
        "message": f"Line {line_id} is now on plan {plan.name} ({plan.data_limit_gb:g} GB, "
        f"${plan.price_per_month:.2f} per month).",
        "line": line,
    }


@EXTENDED_AGENT_TOOLS.tool(ToolKind.READ)
def get_autopay(state: ExtendedTelecomState, customer_id: str) -> dict[str, object]:
    """Show whether autopay is on for a customer and which stored payment method it charges.

    Args:
        customer_id: The customer ID.
    """
    customer = require_customer(state.crm, customer_id)
    last_4 = state.account_services.autopay.get(customer_id)
    method = None if last_4 is None else stored_method(customer, last_4)
    return {"customer_id": customer_id, "autopay_enabled": method is not None, "payment_method": method}


@EXTENDED_AGENT_TOOLS.tool(ToolKind.WRITE)
def set_autopay(
    state: ExtendedTelecomState, customer_id: str, account_number_last_4: str
) -> dict[str, object]:
    """Turn autopay on for a customer, charging one of their stored payment methods that has not expired.
    Bills are then paid automatically on their due date.

    Args:
        customer_id: The customer ID.
        account_number_last_4: The last four digits of the stored payment method to charge.
    """
    customer = require_customer(state.crm, customer_id)
    method = stored_method(customer, account_number_last_4)
    if has_expired(method):
        raise ToolError(
            ErrorCode.INVALID_STATE,
            f"The payment method ending in {account_number_last_4} expired ({method.expiration_date}).",
        )
    state.account_services.autopay[customer_id] = account_number_last_4
    return {
        "message": f"Autopay for customer {customer_id} now charges the {method.method_type.value} ending in "
        f"{account_number_last_4}."
    }


@EXTENDED_AGENT_TOOLS.tool(ToolKind.WRITE)
def activate_device(state: ExtendedTelecomState, customer_id: str, device_id: str) -> dict[str, object]:
    """Activate the device record of one of the customer's lines. The phone regains service only after it
    re-registers on the network, for example after a restart.

    Args:
        customer_id: The customer ID.
        device_id: The ID of the device attached to one of the customer's lines.
    """
    device = owned_device(state, customer_id, device_id)
    if device.activated:
        raise ToolError(ErrorCode.INVALID_STATE, f"Device {device_id} is already activated.")
    device.activated = True
    device.activation_date = NOW
    return {
        "message": f"Device {device_id} is activated. The phone must restart to reconnect.",
        "device": device,
    }
