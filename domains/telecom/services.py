"""Checks the extended services' tools and env functions share: a customer's stored payment methods and
their expiry, the devices of a customer's lines, plans by ID."""

from __future__ import annotations

import re

from tau2.domains.telecom.clock import TODAY
from tau2.domains.telecom.crm import Customer, Device, PaymentMethod, Plan
from tau2.domains.telecom.extended_state import ExtendedTelecomState
from tau2.domains.telecom.lookup import find_device, find_line, find_plan, require_customer
from tau2.errors import ErrorCode, ToolError

EXPIRY = re.compile(r"^(0[1-9]|1[0-2])/(\d{4})$")
"""A payment method's expiry month, MM/YYYY."""


def has_expired(method: PaymentMethod) -> bool:
    """Whether a stored payment method's expiry month (MM/YYYY) lies before the current month."""
    match = EXPIRY.match(method.expiration_date)
    if match is None:
        return True
    return (int(match[2]), int(match[1])) < (TODAY.year, TODAY.month)


def stored_method(customer: Customer, last_4: str) -> PaymentMethod:
    """The customer's stored payment method ending in `last_4`, else `not_found`."""
    method = next((m for m in customer.payment_methods if m.account_number_last_4 == last_4), None)
    if method is None:
        raise ToolError(
            ErrorCode.NOT_FOUND,
            f"Customer {customer.customer_id} has no stored payment method ending in {last_4!r}.",
        )
    return method


def owned_device(state: ExtendedTelecomState, customer_id: str, device_id: str) -> Device:
    """A device attached to one of the customer's lines: customer missing or device unknown → `not_found`,
    attached to none of the customer's lines → `not_owned`."""
    customer = require_customer(state.crm, customer_id)
    device = find_device(state.crm, device_id)
    if device is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Device {device_id!r} not found.")
    lines = [find_line(state.crm, line_id) for line_id in customer.line_ids]
    if not any(line is not None and line.device_id == device_id for line in lines):
        raise ToolError(
            ErrorCode.NOT_OWNED, f"Device {device_id!r} is on none of customer {customer_id!r}'s lines."
        )
    return device


def require_plan_id(state: ExtendedTelecomState, plan_id: str) -> Plan:
    """The plan with this ID, else `not_found`."""
    plan = find_plan(state.crm, plan_id)
    if plan is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Plan {plan_id!r} not found.")
    return plan
