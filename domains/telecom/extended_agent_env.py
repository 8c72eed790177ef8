"""The extended domain's agent-side env functions, which plant its faults and scenarios (another line,
another customer, a further bill, a stored card, a plan or device changed by mistake), and the assertions
that read them. Each check runs before any change, so a failing call changes nothing."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Literal

from tau2.domains.telecom.billing import append_bill
from tau2.domains.telecom.clock import NOW, PAYMENT_TERM, TODAY, month_end, month_start
from tau2.domains.telecom.crm import (
    AccountStatus,
    Address,
    Bill,
    BillStatus,
    Customer,
    Line,
    LineItem,
    LineStatus,
    PaymentMethod,
    PaymentMethodType,
)
from tau2.domains.telecom.extended_state import ExtendedTelecomState
from tau2.domains.telecom.lookup import (
    customer_for_number,
    find_bill,
    find_customer,
    find_line,
    require_customer,
    require_owned_line,
    require_plan,
)
from tau2.domains.telecom.services import EXPIRY, has_expired, owned_device, require_plan_id, stored_method
from tau2.errors import ErrorCode, ToolError
from tau2.world import Observation, Side, ToolSet

EXTENDED_AGENT_ENV = ToolSet(Side.AGENT)

AddedLineStatus = Literal["Active", "Suspended", "Pending Activation"]
AddedBillStatus = Literal["Issued", "Overdue", "Disputed", "Paid"]
PaymentMethodValue = Literal["Credit Card", "Debit Card", "PayPal"]
_LAST_4 = re.compile(r"^\d{4}$")
_PHONE = re.compile(r"^\d{3}-\d{3}-\d{4}$")


@EXTENDED_AGENT_ENV.env_function()
def set_line_plan(state: ExtendedTelecomState, customer_id: str, line_id: str, plan_id: str) -> None:
    """Put a line on another plan without recording a plan change, e.g. a plan switched by mistake.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        plan_id: The ID of an existing plan.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    require_plan_id(state, plan_id)
    line.plan_id = plan_id


@EXTENDED_AGENT_ENV.env_function()
def set_device_activation(
    state: ExtendedTelecomState, customer_id: str, device_id: str, activated: bool
) -> None:
    """Set whether the device record of one of the customer's lines is activated.

    Args:
        customer_id: The customer ID.
        device_id: The ID of the device attached to one of the customer's lines.
        activated: Whether the device is activated.
    """
    device = owned_device(state, customer_id, device_id)
    device.activated = activated


@EXTENDED_AGENT_ENV.env_function()
def add_payment_method(
    state: ExtendedTelecomState,
    customer_id: str,
    method_type: PaymentMethodValue,
    account_number_last_4: str,
    expiration_date: str,
) -> None:
    """Store another payment method for a customer (expired ones included).

    Args:
        customer_id: The customer ID.
        method_type: Credit Card, Debit Card or PayPal.
        account_number_last_4: Four digits that no other stored method of the customer ends in.
        expiration_date: The expiry month as MM/YYYY.
    """
    customer = require_customer(state.crm, customer_id)
    if not _LAST_4.match(account_number_last_4):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Expected four digits (got {account_number_last_4!r}).")
    if not EXPIRY.match(expiration_date):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Expected an expiry as MM/YYYY (got {expiration_date!r})."
        )
    if any(m.account_number_last_4 == account_number_last_4 for m in customer.payment_methods):
        raise ToolError(
            ErrorCode.CONFLICT,
            f"Customer {customer_id} already has a method ending in {account_number_last_4}.",
        )
    customer.payment_methods.append(
        PaymentMethod(
            method_type=PaymentMethodType(method_type),
            account_number_last_4=account_number_last_4,
            expiration_date=expiration_date,
        )
    )


@EXTENDED_AGENT_ENV.env_function()
def configure_autopay(state: ExtendedTelecomState, customer_id: str, account_number_last_4: str) -> None:
    """Have autopay charge a stored payment method, as set up in the past, whether or not it has expired
    since.

    Args:
        customer_id: The customer ID.
        account_number_last_4: The last four digits of one of the customer's stored payment methods.
    """
    customer = require_customer(state.crm, customer_id)
    stored_method(customer, account_number_last_4)
    state.account_services.autopay[customer_id] = account_number_last_4


@EXTENDED_AGENT_ENV.env_function()
def add_bill(
    state: ExtendedTelecomState,
    customer_id: str,
    bill_id: str,
    months_ago: int,
    description: str,
    amount: float,
    status: AddedBillStatus,
) -> None:
    """Add a bill with one charge for a past month, in the status given (e.g. an older Overdue bill, or a
    Disputed one that must not be collected).

    Args:
        customer_id: The customer ID.
        bill_id: An unused bill ID (prefix B).
        months_ago: Which month the bill is for: 1 is last month, up to 12.
        description: The charge's description.
        amount: The charge in dollars (more than 0).
        status: Issued, Overdue, Disputed or Paid.
    """
    customer = require_customer(state.crm, customer_id)
    if not bill_id.startswith("B"):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Bill IDs start with B (got {bill_id!r}).")
    if find_bill(state.crm, bill_id) is not None or bill_id in customer.bill_ids:
        raise ToolError(ErrorCode.CONFLICT, f"Bill ID {bill_id} is already used.")
    if not (math.isfinite(amount) and 0 < amount < 1e9):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"amount must be a positive number of dollars (got {amount})."
        )
    if not 1 <= months_ago <= 12:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"months_ago must be 1 to 12 (got {months_ago}).")
    start = month_start(TODAY, -months_ago)
    charge = LineItem(description=description, amount=amount, date=start, item_type="Charge")
    bill = Bill(
        bill_id=bill_id,
        customer_id=customer_id,
        period_start=start,
        period_end=month_end(TODAY, -months_ago),
        issue_date=start,
        due_date=start + PAYMENT_TERM,
        total_due=amount,
        line_items=[charge],
        status=BillStatus(status),
    )
    append_bill(state.crm, customer, bill)


@EXTENDED_AGENT_ENV.env_function()
def add_customer(
    state: ExtendedTelecomState,
    customer_id: str,
    full_name: str,
    date_of_birth: str,
    email: str,
    phone_number: str,
    address: Address,
) -> None:
    """Add an Active customer without lines or bills, e.g. a partner with an account of their own.

    Args:
        customer_id: An unused customer ID (prefix C).
        full_name: The customer's full name.
        date_of_birth: The date of birth as YYYY-MM-DD.
        email: The customer's e-mail address.
        phone_number: The contact number (###-###-####), on no line and no other customer's contact number.
        address: The postal address (street, city, state, zip_code).
    """
    if not customer_id.startswith("C") or find_customer(state.crm, customer_id) is not None:
        raise ToolError(ErrorCode.CONFLICT, f"Customer ID {customer_id!r} is taken or not a C-prefixed ID.")
    if not full_name.strip() or not email.strip():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "A customer needs a name and an e-mail address.")
    try:
        dt.date.fromisoformat(date_of_birth)
    except ValueError:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Expected YYYY-MM-DD (got {date_of_birth!r}).") from None
    if not _PHONE.match(phone_number) or customer_for_number(state.crm, phone_number) is not None:
        raise ToolError(ErrorCode.CONFLICT, f"Phone number {phone_number!r} is malformed or already in use.")
    state.crm.customers.append(
        Customer(
            customer_id=customer_id,
            full_name=full_name,
            date_of_birth=date_of_birth,
            email=email,
            phone_number=phone_number,
            address=address,
            account_status=AccountStatus.ACTIVE,
            created_at=NOW,
        )
    )


@EXTENDED_AGENT_ENV.env_function()
def add_line(
    state: ExtendedTelecomState,
    customer_id: str,
    line_id: str,
    phone_number: str,
    plan_id: str,
    status: AddedLineStatus,
    roaming_enabled: bool,
    contract_end_date: str,
) -> None:
    """Add a line without a device to a customer, e.g. a family member's line or an old tablet's.

    Args:
        customer_id: The customer ID.
        line_id: An unused line ID (prefix L).
        phone_number: A number (###-###-####) on no line, and no customer's contact number but this one's.
        plan_id: The ID of an existing plan.
        status: Active, Suspended (from today) or Pending Activation.
        roaming_enabled: Whether the carrier lets the line roam.
        contract_end_date: The contract's end as YYYY-MM-DD.
    """
    customer = require_customer(state.crm, customer_id)
    require_plan_id(state, plan_id)
    if not line_id.startswith("L") or find_line(state.crm, line_id) is not None:
        raise ToolError(ErrorCode.CONFLICT, f"Line ID {line_id!r} is taken or not an L-prefixed ID.")
    owner = customer_for_number(state.crm, phone_number)
    in_use = any(line.phone_number == phone_number for line in state.crm.lines)
    if not _PHONE.match(phone_number) or in_use or (owner is not None and owner is not customer):
        raise ToolError(ErrorCode.CONFLICT, f"Phone number {phone_number!r} is malformed or already in use.")
    try:
        contract_end = dt.date.fromisoformat(contract_end_date)
    except ValueError:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Expected YYYY-MM-DD (got {contract_end_date!r})."
        ) from None
    line_status = LineStatus(status)
    state.crm.lines.append(
        Line(
            line_id=line_id,
            phone_number=phone_number,
            status=line_status,
            plan_id=plan_id,
            roaming_enabled=roaming_enabled,
            contract_end_date=contract_end,
            suspension_start_date=TODAY if line_status is LineStatus.SUSPENDED else None,
        )
    )
    customer.line_ids.append(line_id)


@EXTENDED_AGENT_ENV.assertion()
def assert_line_plan(
    state: ExtendedTelecomState, customer_id: str, line_id: str, expected_plan_id: str
) -> Observation:
    """Whether the line is on plan `expected_plan_id`; observes the line's plan.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        expected_plan_id: The plan it should be on.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    return Observation(holds=line.plan_id == expected_plan_id, observed=line.plan_id)


@EXTENDED_AGENT_ENV.assertion()
def assert_line_data_available(
    state: ExtendedTelecomState, customer_id: str, line_id: str, expected_status: bool
) -> Observation:
    """Whether the line has data left this cycle (used below its plan's allowance plus refuelled data)
    equals `expected_status`; observes the GB used and the allowance.

    Args:
        customer_id: The customer ID.
        line_id: The ID of the customer's line.
        expected_status: Whether data should be left.
    """
    _, line = require_owned_line(state.crm, customer_id, line_id)
    allowance = require_plan(state.crm, line).data_limit_gb + line.data_refueling_gb
    available = line.data_used_gb < allowance
    return Observation(
        holds=available == expected_status, observed={"used_gb": line.data_used_gb, "allowance_gb": allowance}
    )


@EXTENDED_AGENT_ENV.assertion()
def assert_bill_status(
    state: ExtendedTelecomState, customer_id: str, bill_id: str, expected_status: AddedBillStatus
) -> Observation:
    """Whether the customer's bill has status `expected_status`; observes the status (null: the customer
    has no such bill).

    Args:
        customer_id: The customer ID.
        bill_id: The bill ID.
        expected_status: Issued, Overdue, Disputed or Paid.
    """
    customer = find_customer(state.crm, customer_id)
    bill = find_bill(state.crm, bill_id)
    owned = customer is not None and bill is not None and bill_id in customer.bill_ids
    status = bill.status.value if owned and bill is not None else None
    return Observation(holds=status == expected_status, observed=status)


@EXTENDED_AGENT_ENV.assertion()
def assert_autopay_usable(state: ExtendedTelecomState, customer_id: str) -> Observation:
    """Whether the customer's autopay is off or charges a stored payment method that has not expired;
    observes the method's last four digits and expiry (null: autopay off).

    Args:
        customer_id: The customer ID.
    """
    customer = require_customer(state.crm, customer_id)
    last_4 = state.account_services.autopay.get(customer_id)
    if last_4 is None:
        return Observation(holds=True, observed=None)
    method = next((m for m in customer.payment_methods if m.account_number_last_4 == last_4), None)
    usable = method is not None and not has_expired(method)
    expiry = None if method is None else method.expiration_date
    return Observation(holds=usable, observed={"last_4": last_4, "expiration_date": expiry})


@EXTENDED_AGENT_ENV.assertion()
def assert_autopay_method(state: ExtendedTelecomState, customer_id: str, expected_last_4: str) -> Observation:
    """Whether autopay charges the stored payment method ending in `expected_last_4`; observes the last four
    digits it charges (null: autopay off).

    Args:
        customer_id: The customer ID.
        expected_last_4: The last four digits autopay should charge.
    """
    require_customer(state.crm, customer_id)
    last_4 = state.account_services.autopay.get(customer_id)
    return Observation(holds=last_4 == expected_last_4, observed=last_4)


@EXTENDED_AGENT_ENV.assertion()
def assert_device_activated(
    state: ExtendedTelecomState, customer_id: str, device_id: str, expected_status: bool
) -> Observation:
    """Whether the device record of one of the customer's lines is activated equals `expected_status`;
    observes whether it is.

    Args:
        customer_id: The customer ID.
        device_id: The device ID.
        expected_status: Whether the device should be activated.
    """
    device = owned_device(state, customer_id, device_id)
    return Observation(holds=device.activated == expected_status, observed=device.activated)
