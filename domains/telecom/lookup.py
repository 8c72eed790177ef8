"""Finding CRM records by ID or number, and the checks shared by agent tools (spec §4 "owned line")."""

from __future__ import annotations

from tau2.domains.telecom.crm import Bill, Customer, Device, Line, Plan, TelecomDB
from tau2.errors import ErrorCode, ToolError


def find_customer(crm: TelecomDB, customer_id: str) -> Customer | None:
    """The customer with this ID, if any."""
    return next((customer for customer in crm.customers if customer.customer_id == customer_id), None)


def find_line(crm: TelecomDB, line_id: str) -> Line | None:
    """The line with this ID, if any."""
    return next((line for line in crm.lines if line.line_id == line_id), None)


def find_bill(crm: TelecomDB, bill_id: str) -> Bill | None:
    """The bill with this ID, if any."""
    return next((bill for bill in crm.bills if bill.bill_id == bill_id), None)


def find_plan(crm: TelecomDB, plan_id: str) -> Plan | None:
    """The plan with this ID, if any."""
    return next((plan for plan in crm.plans if plan.plan_id == plan_id), None)


def find_device(crm: TelecomDB, device_id: str) -> Device | None:
    """The device with this ID, if any."""
    return next((device for device in crm.devices if device.device_id == device_id), None)


def line_for_number(crm: TelecomDB, phone_number: str) -> Line | None:
    """The first line (in `lines` order) with this phone number."""
    return next((line for line in crm.lines if line.phone_number == phone_number), None)


def customer_for_number(crm: TelecomDB, phone_number: str) -> Customer | None:
    """The first customer whose primary number is `phone_number` or who has a line with that number."""
    numbered = {line.line_id for line in crm.lines if line.phone_number == phone_number}
    for customer in crm.customers:
        if customer.phone_number == phone_number or not numbered.isdisjoint(customer.line_ids):
            return customer
    return None


def customer_bills(crm: TelecomDB, customer: Customer) -> list[Bill]:
    """The customer's bills in `bill_ids` order (IDs without a record are skipped)."""
    by_id = {bill.bill_id: bill for bill in crm.bills}
    return [by_id[bill_id] for bill_id in customer.bill_ids if bill_id in by_id]


def require_customer(crm: TelecomDB, customer_id: str) -> Customer:
    """The customer with this ID, else `not_found`."""
    customer = find_customer(crm, customer_id)
    if customer is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Customer {customer_id!r} not found.")
    return customer


def require_owned_line(crm: TelecomDB, customer_id: str, line_id: str) -> tuple[Customer, Line]:
    """The customer and one of its lines: customer missing → `not_found`, line not the customer's →
    `not_owned`, line record missing → `not_found`."""
    customer = require_customer(crm, customer_id)
    if line_id not in customer.line_ids:
        raise ToolError(ErrorCode.NOT_OWNED, f"Line {line_id!r} does not belong to customer {customer_id!r}.")
    line = find_line(crm, line_id)
    if line is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Line {line_id!r} not found.")
    return customer, line


def require_plan(crm: TelecomDB, line: Line) -> Plan:
    """The plan of a line, else `not_found`."""
    plan = find_plan(crm, line.plan_id)
    if plan is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Plan {line.plan_id!r} of line {line.line_id!r} not found.")
    return plan
