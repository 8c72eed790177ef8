"""Invariants every telecom state must satisfy after every operation; each violation names its field path.

Used by the loader (a data file must be sound), by tests after every step, and as `Domain.invariants`.
"""

from __future__ import annotations

from collections.abc import Iterable

from tau2.domains.telecom.binding import line_active, payment_request, roaming_allowed, usage_exceeded
from tau2.domains.telecom.crm import BillStatus, LineStatus, TelecomDB
from tau2.domains.telecom.phone import ConnectionStatus, DeviceState, PaymentRequest, Surroundings
from tau2.domains.telecom.state import TelecomState

_ID_FIELDS = (
    ("plans", "plan_id"),
    ("customers", "customer_id"),
    ("lines", "line_id"),
    ("bills", "bill_id"),
    ("devices", "device_id"),
)


def invariant_violations(state: TelecomState) -> list[str]:
    """Every broken invariant of `state`, as `path: problem` lines (empty when sound)."""
    return [*crm_violations(state.crm), *_device_violations(state.device), *_coupling_violations(state)]


def crm_violations(crm: TelecomDB) -> list[str]:
    """Referential integrity of the CRM and at most one `Awaiting Payment` bill per customer."""
    problems: list[str] = []
    for table, key in _ID_FIELDS:
        problems += _duplicates(f"crm.{table}", key, [getattr(row, key) for row in getattr(crm, table)])
    plans = {plan.plan_id for plan in crm.plans}
    devices = {device.device_id for device in crm.devices}
    lines = {line.line_id for line in crm.lines}
    bills_by_id = {bill.bill_id: bill for bill in crm.bills}
    customers = {customer.customer_id: customer for customer in crm.customers}
    for index, line in enumerate(crm.lines):
        if line.plan_id not in plans:
            problems.append(f"crm.lines[{index}].plan_id: no plan {line.plan_id!r}")
        if line.device_id is not None and line.device_id not in devices:
            problems.append(f"crm.lines[{index}].device_id: no device {line.device_id!r}")
    for index, bill in enumerate(crm.bills):
        owner = customers.get(bill.customer_id)
        if owner is None or bill.bill_id not in owner.bill_ids:
            problems.append(
                f"crm.bills[{index}].customer_id: customer {bill.customer_id!r} does not list this bill"
            )
    for index, customer in enumerate(crm.customers):
        path = f"crm.customers[{index}]"
        problems += [
            f"{path}.line_ids[{position}]: no line {line_id!r}"
            for position, line_id in enumerate(customer.line_ids)
            if line_id not in lines
        ]
        awaiting = 0
        for position, bill_id in enumerate(customer.bill_ids):
            owned = bills_by_id.get(bill_id)
            if owned is None or owned.customer_id != customer.customer_id:
                problems.append(f"{path}.bill_ids[{position}]: no bill {bill_id!r} of this customer")
            elif owned.status == BillStatus.AWAITING_PAYMENT:
                awaiting += 1
        if awaiting > 1:
            problems.append(f"{path}.bill_ids: {awaiting} bills are Awaiting Payment (at most one allowed)")
    return problems


def _duplicates(path: str, key: str, values: Iterable[str]) -> list[str]:
    """A problem for each repeated ID in a table."""
    seen: set[str] = set()
    problems = []
    for index, value in enumerate(values):
        if value in seen:
            problems.append(f"{path}[{index}].{key}: duplicate ID {value!r}")
        seen.add(value)
    return problems


def _device_violations(device: DeviceState) -> list[str]:
    """Consistency of the phone's settings."""
    problems = []
    if (device.vpn_details is not None) != device.vpn_connected:
        problems.append("device.vpn_details: must be present exactly while vpn_connected is true")
    if device.wifi_connected and (not device.wifi_enabled or device.airplane_mode):
        problems.append(
            "device.wifi_connected: Wi-Fi can be connected only with the radio on and airplane mode off"
        )
    if device.network_connection_status == ConnectionStatus.SEARCHING:
        problems.append("device.network_connection_status: 'searching' is transient and must not persist")
    if not 0 <= device.battery_level <= 100:
        problems.append(f"device.battery_level: {device.battery_level} is outside 0-100")
    return problems


def _coupling_violations(state: TelecomState) -> list[str]:
    """C1–C4: while bound, the derived facts equal a direct recomputation from the CRM, and the stored
    coupled fields stay at their defaults (they are not consulted)."""
    number = state.surroundings.phone_number
    if number is None:
        return []
    crm = state.crm
    numbered = [line for line in crm.lines if line.phone_number == number]
    if not numbered:
        return [f"surroundings.phone_number: no line has the number {number!r}"]
    line = numbered[0]
    plan = next((plan for plan in crm.plans if plan.plan_id == line.plan_id), None)
    owner = next(
        (
            c
            for c in crm.customers
            if c.phone_number == number or any(n.line_id in c.line_ids for n in numbered)
        ),
        None,
    )
    awaiting = [
        bill
        for bill_id in (owner.bill_ids if owner else [])
        for bill in crm.bills
        if bill.bill_id == bill_id and bill.status == BillStatus.AWAITING_PAYMENT
    ]
    expected = {
        "line_active": line.status == LineStatus.ACTIVE,
        "roaming_allowed": line.roaming_enabled,
        "mobile_data_usage_exceeded": plan is not None
        and line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb,
        "payment_request": PaymentRequest(bill_id=awaiting[0].bill_id, amount_due=awaiting[0].total_due)
        if awaiting
        else None,
    }
    derived = {
        "line_active": line_active(state),
        "roaming_allowed": roaming_allowed(state),
        "mobile_data_usage_exceeded": usage_exceeded(state),
        "payment_request": payment_request(state),
    }
    problems = [
        f"surroundings.{name}: derived value {derived[name]!r} differs from the CRM's {expected[name]!r}"
        for name in expected
        if derived[name] != expected[name]
    ]
    problems += [
        f"surroundings.{name}: stored value must stay at its default while bound"
        for name in expected
        if getattr(state.surroundings, name) != Surroundings.model_fields[name].default
    ]
    return problems
