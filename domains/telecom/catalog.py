"""The telecom subtask catalog (spec §9.1–§9.3): 20 atomic faults (plus the optional PUK lock) in 14
groups, three intents, and the troubleshooting workflow's precedences.

Parameters come from the target, so the catalog works on any database: the customer's name and number,
the line's allowance (usage is set just above it), and an overdue-bill ID unused in the data. Beyond the
spec's checks, the faults it lists without one are checked for their symptom too (no MMS; for 2G also no
excellent speed), so generation proves that every planted fault shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tau2.domains.telecom.clock import TODAY
from tau2.domains.telecom.crm import (
    AccountStatus,
    BillStatus,
    Customer,
    DeviceType,
    Line,
    LineStatus,
    Plan,
    TelecomDB,
)
from tau2.domains.telecom.lookup import (
    customer_bills,
    customer_for_number,
    find_bill,
    find_device,
    find_line,
    find_plan,
    line_for_number,
)
from tau2.domains.telecom.scenarios import (
    ABROAD,
    AT_HOME,
    MMS,
    MOBILE_DATA,
    PAY_ANY_OVERDUE_BILL,
    SERVICE,
    TAU2_PAYMENT_WORDINGS,
    refuel_phrase,
)
from tau2.domains.telecom.spare import spare_ids, spare_numbers
from tau2.domains.telecom.state import TelecomState
from tau2.tasks import AssertionCall, Catalog, EnvCall, Fact, Group, Intent, Precedence, Step, Subtask, Target
from tau2.world import Side, World

VERSION = "telecom-1"
REFUEL_GB = 2.0
"""The refuel the customer accepts; also the policy's cap on a line's refuels per cycle."""
OVERDUE_BILL_ID = "B1234321"
"""Preferred ID of the overdue bill a suspension creates (the next unused one when taken)."""
OVER_ALLOWANCE_GB = 0.1
"""How far above the allowance an exceeded line's usage is set."""

DEFAULT_SUITE = Path(__file__).parent / "suites" / "base.json"
"""The suite `tau2 run --domain telecom` uses unless told otherwise (see suites/README.md)."""
EXTENDED_SUITE = Path(__file__).parent / "suites" / "extended.json"
"""The suite `tau2 run --domain telecom_extended` uses unless told otherwise (see suites/README.md)."""
EXTENDED_FAULTS = Path(__file__).parent / "catalogs" / "extended.toml"
"""The catalog extension with the faults beyond τ²-bench's (`tau2 generate --catalog extended`)."""

A, U = Side.AGENT, Side.USER


def _call(side: Side, function: str, /, **arguments: str | float | bool) -> EnvCall:
    return EnvCall(side=side, name=function, arguments=arguments)


def _step(side: Side, tool: str, /, stage: str | None = None, **arguments: str | float | bool) -> Step:
    return Step(side=side, name=tool, arguments=arguments, stage=stage)


def _check(side: Side, assertion: str, /, **arguments: str | float | bool | None) -> AssertionCall:
    return AssertionCall(side=side, name=assertion, arguments=arguments)


def _service(status: str) -> AssertionCall:
    return _check(U, "assert_service_status", expected_status=status)


GROUPS = (
    Group(name="airplane", workflow_step="1.1", description="Airplane mode is on."),
    Group(name="sim_missing", workflow_step="1.2", description="The SIM card is not seated."),
    Group(name="sim_locked", workflow_step="1.2", description="The SIM card is locked."),
    Group(name="apn", workflow_step="1.3", description="The APN settings are broken."),
    Group(name="suspension", workflow_step="1.4", description="The line is suspended."),
    Group(name="roaming", workflow_step="2.1.2", description="Abroad without working roaming."),
    Group(name="data_switch", workflow_step="2.1.3", description="Mobile data is switched off."),
    Group(name="data_usage", workflow_step="2.1.4", description="The data allowance is used up."),
    Group(name="data_saver", workflow_step="2.2.1", description="Data saver slows the connection."),
    Group(name="network_mode", workflow_step="2.2.2 / 3.3", description="The network mode is 2G only."),
    Group(name="vpn", workflow_step="2.2.3", description="A poor VPN slows the connection."),
    Group(name="wifi_calling", workflow_step="3.4", description="MMS are routed over Wi-Fi calling."),
    Group(name="app_permissions", workflow_step="3.5", description="The messaging app lacks permissions."),
    Group(name="apn_mms", workflow_step="3.6", description="The MMS centre URL is missing."),
)

STAGES = (
    "airplane",
    "sim_missing",
    "apn",
    "payment",
    "resume",
    "reconnect",
    "roaming",
    "data_switch",
    "data_usage",
    "data_saver",
    "network_mode",
    "vpn",
    "wifi_calling",
    "app_permissions",
    "apn_mms",
)

FIX_ORDER = (
    Precedence(before="airplane", after="sim_missing", reason="1.1 before 1.2: airplane mode hides the SIM"),
    Precedence(before="sim_missing", after="apn", reason="1.2 before 1.3 in the no-service path"),
    Precedence(before="apn", after="payment", reason="1.3 before 1.4 in the no-service path"),
    Precedence(
        before="payment", after="resume", reason="a line is resumed only once its overdue bill is paid"
    ),
    Precedence(
        before="resume", after="reconnect", reason="a resumed line needs the reboot that re-registers it"
    ),
    Precedence(before="reconnect", after="roaming", reason="basic service comes before mobile data"),
    Precedence(
        before="roaming", after="data_switch", reason="2.1.2 before 2.1.3: roaming only matters abroad"
    ),
    Precedence(
        before="data_switch", after="data_usage", reason="2.1.3 before 2.1.4 in the no-connection path"
    ),
    Precedence(before="data_usage", after="data_saver", reason="a working connection before a fast one"),
    Precedence(before="data_saver", after="network_mode", reason="2.2.1 before 2.2.2 in the slow path"),
    Precedence(before="network_mode", after="vpn", reason="2.2.2 before 2.2.3 in the slow path"),
    Precedence(before="network_mode", after="wifi_calling", reason="3.3 before 3.4 in the MMS path"),
    Precedence(before="wifi_calling", after="app_permissions", reason="3.4 before 3.5 in the MMS path"),
    Precedence(before="app_permissions", after="apn_mms", reason="3.5 before 3.6 in the MMS path"),
)

INJECTION_ORDER = (
    Precedence(before="airplane", after="vpn", reason="turning airplane mode on drops a connected VPN"),
)


@dataclass(frozen=True)
class EligibleLine:
    """What the catalog needs to know about an eligible target."""

    customer: Customer
    line: Line
    plan: Plan


def _subtasks(target: EligibleLine, bill_id: str) -> tuple[Subtask, ...]:
    """Every subtask of the catalog, with its parameters taken from the target."""
    line = {"customer_id": target.customer.customer_id, "line_id": target.line.line_id}
    allowance = target.plan.data_limit_gb + target.line.data_refueling_gb
    no_service = _service("no_service")
    no_connection = _check(U, "assert_internet_speed", expected_speed=0, expected_desc="No Connection")
    exceeded = _check(U, "assert_mobile_data_usage_exceeded", expected_status=True)
    no_mms = _check(U, "assert_can_send_mms", expected_status=False)
    abroad_fact = (Fact(key="location", phrase=ABROAD),)
    suspension_checks = (
        no_service,
        _check(A, "assert_overdue_bill_exists", customer_id=line["customer_id"], overdue_bill_id=bill_id),
        _check(A, "assert_line_status", **line, expected_status="Suspended"),
    )

    def suspend(contract_ended: bool) -> tuple[EnvCall, ...]:
        return (
            _call(
                A, "suspend_line_for_overdue_bill", **line, new_bill_id=bill_id, contract_ended=contract_ended
            ),
            _call(U, "simulate_network_search"),
        )

    def abroad(phone_roaming: bool, line_roaming: bool) -> tuple[EnvCall, ...]:
        calls = (
            _call(U, "set_user_location", abroad=True),
            _call(U, "turn_roaming_on" if phone_roaming else "turn_roaming_off"),
            _call(A, "enable_roaming" if line_roaming else "disable_roaming", **line),
        )
        # as in τ²-bench (spec §9.2), a disabled line is followed by a search
        return calls if line_roaming else (*calls, _call(U, "simulate_network_search"))

    def phone_roaming(on: bool) -> AssertionCall:
        return _check(U, "assert_mobile_roaming_status", expected_status=on)

    def revoke(*permissions: str) -> tuple[EnvCall, ...]:
        return tuple(
            _call(U, "remove_app_permission", app_name="messaging", permission=p) for p in permissions
        )

    def grant(*permissions: str) -> tuple[Step, ...]:
        return tuple(
            _step(U, "grant_app_permission", app_name="messaging", permission=p) for p in permissions
        )

    return (
        Subtask(
            name="airplane_mode_on",
            group="airplane",
            description="Airplane mode is switched on.",
            init=(_call(U, "turn_airplane_mode_on"),),
            checks=(_check(U, "assert_airplane_mode_status", expected_status=True), no_service),
            solution=(_step(U, "toggle_airplane_mode"),),
        ),
        Subtask(
            name="unseat_sim_card",
            group="sim_missing",
            description="The SIM card has come loose.",
            init=(_call(U, "unseat_sim_card"),),
            checks=(no_service,),
            solution=(_step(U, "reseat_sim_card"),),
        ),
        Subtask(
            name="lock_sim_card_pin",
            group="sim_locked",
            description="The SIM card is PIN-locked; no tool unlocks it.",
            init=(_call(U, "lock_sim_card", mode="pin"),),
            checks=(no_service,),
            unfixable=True,
        ),
        Subtask(
            name="lock_sim_card_puk",
            group="sim_locked",
            description="The SIM card is PUK-locked; no tool unlocks it.",
            init=(_call(U, "lock_sim_card", mode="puk"),),
            checks=(no_service,),
            unfixable=True,
            optional=True,
        ),
        Subtask(
            name="break_apn_settings",
            group="apn",
            description="The access point name is broken.",
            init=(_call(U, "break_apn_settings"),),
            checks=(no_service,),
            solution=(
                _step(U, "reset_apn_settings", stage="apn"),
                _step(U, "reboot_device", stage="reconnect"),
            ),
        ),
        Subtask(
            name="overdue_bill_suspension",
            group="suspension",
            description="The line is suspended for an overdue bill.",
            init=suspend(contract_ended=False),
            checks=suspension_checks,
            solution=(
                _step(
                    A,
                    "send_payment_request",
                    stage="payment",
                    customer_id=line["customer_id"],
                    bill_id=bill_id,
                ),
                _step(U, "make_payment", stage="payment"),
                _step(A, "resume_line", stage="resume", **line),
                _step(U, "reboot_device", stage="reconnect"),
            ),
            facts=(
                Fact(key="payment_permission", phrase=PAY_ANY_OVERDUE_BILL, wordings=TAU2_PAYMENT_WORDINGS),
            ),
        ),
        Subtask(
            name="contract_end_suspension",
            group="suspension",
            description="The line is suspended and its contract has ended; it must not be resumed.",
            init=suspend(contract_ended=True),
            checks=suspension_checks,
            unfixable=True,
        ),
        Subtask(
            name="user_abroad_roaming_enabled_off",
            group="roaming",
            description="Abroad; the line allows roaming but the phone's data roaming is off.",
            init=abroad(phone_roaming=False, line_roaming=True),
            checks=(phone_roaming(False),),
            solution=(_step(U, "toggle_roaming"),),
            facts=abroad_fact,
        ),
        Subtask(
            name="user_abroad_roaming_disabled_on",
            group="roaming",
            description="Abroad; the phone's data roaming is on but the line does not allow roaming.",
            init=abroad(phone_roaming=True, line_roaming=False),
            checks=(phone_roaming(True), no_connection),
            solution=(_step(A, "enable_roaming", **line),),
            facts=abroad_fact,
        ),
        Subtask(
            name="user_abroad_roaming_disabled_off",
            group="roaming",
            description="Abroad; neither the line nor the phone has roaming on.",
            init=abroad(phone_roaming=False, line_roaming=False),
            checks=(phone_roaming(False), no_connection),
            solution=(_step(A, "enable_roaming", **line), _step(U, "toggle_roaming")),
            facts=abroad_fact,
        ),
        Subtask(
            name="data_mode_off",
            group="data_switch",
            description="Mobile data is switched off.",
            init=(_call(U, "turn_data_off"),),
            checks=(_check(U, "assert_mobile_data_status", expected_status=False),),
            solution=(_step(U, "toggle_data"),),
        ),
        Subtask(
            name="data_usage_exceeded",
            group="data_usage",
            description="The line has used more data than its allowance.",
            init=(_call(A, "set_data_usage", **line, data_used_gb=_gb(allowance + OVER_ALLOWANCE_GB)),),
            checks=(exceeded,),
            solution=(_step(A, "refuel_data", **line, gb_amount=REFUEL_GB),),
            extra_assertions=(
                _check(
                    A,
                    "assert_data_refueling_amount",
                    **line,
                    expected_amount=_gb(target.line.data_refueling_gb + REFUEL_GB),
                ),
            ),
            facts=(Fact(key="refuel_amount", phrase=refuel_phrase(REFUEL_GB)),),
        ),
        Subtask(
            name="data_usage_exceeded_no_refuel",
            group="data_usage",
            description="The allowance is used up after the cycle's refuel cap was already bought.",
            init=(
                _call(A, "refuel_data", **line, gb_amount=REFUEL_GB),
                _call(
                    A, "set_data_usage", **line, data_used_gb=_gb(allowance + REFUEL_GB + OVER_ALLOWANCE_GB)
                ),
            ),
            checks=(exceeded,),
            unfixable=True,
        ),
        Subtask(
            name="data_saver_mode_on",
            group="data_saver",
            description="Data saver mode is on.",
            init=(_call(U, "turn_data_saver_mode_on"),),
            checks=(_check(U, "assert_mobile_data_saver_mode_status", expected_status=True),),
            solution=(_step(U, "toggle_data_saver_mode"),),
        ),
        Subtask(
            name="bad_network_preference",
            group="network_mode",
            description="The network mode is set to 2G only.",
            init=(_call(U, "set_network_mode_preference", mode="2g_only"),),
            checks=(_check(U, "assert_internet_not_excellent"), no_mms),
            solution=(_step(U, "set_network_mode_preference", mode="4g_5g_preferred"),),
        ),
        Subtask(
            name="bad_vpn",
            group="vpn",
            description="A VPN with poor performance is connected.",
            init=(_call(U, "break_vpn"),),
            checks=(_check(U, "assert_internet_not_excellent"),),
            solution=(_step(U, "disconnect_vpn"),),
        ),
        Subtask(
            name="bad_wifi_calling",
            group="wifi_calling",
            description="Wi-Fi calling is on and routes MMS over Wi-Fi.",
            init=(_call(U, "set_wifi_calling", enabled=True, mms_over_wifi=True),),
            checks=(no_mms,),
            solution=(_step(U, "toggle_wifi_calling"),),
        ),
        Subtask(
            name="break_app_sms_permission",
            group="app_permissions",
            description="The messaging app lacks the SMS permission.",
            init=revoke("sms"),
            checks=(no_mms,),
            solution=grant("sms"),
        ),
        Subtask(
            name="break_app_storage_permission",
            group="app_permissions",
            description="The messaging app lacks the storage permission.",
            init=revoke("storage"),
            checks=(no_mms,),
            solution=grant("storage"),
        ),
        Subtask(
            name="break_app_both_permissions",
            group="app_permissions",
            description="The messaging app lacks the SMS and storage permissions.",
            init=revoke("sms", "storage"),
            checks=(no_mms,),
            solution=grant("sms", "storage"),
        ),
        Subtask(
            name="break_apn_mms_setting",
            group="apn_mms",
            description="The MMS centre URL is missing from the APN settings.",
            init=(_call(U, "break_apn_mms_setting"),),
            checks=(no_mms,),
            solution=(_step(U, "reset_apn_settings"), _step(U, "reboot_device")),
        ),
    )


def _intents(bill_id: str) -> tuple[Intent, ...]:
    """The three intents, in the order τ²-bench files list them."""
    data_ok = _check(U, "assert_mobile_data_status", expected_status=True)
    excellent = _check(U, "assert_internet_speed", expected_speed=200, expected_desc="excellent")
    return (
        Intent(
            name="mobile_data_issue",
            groups=("airplane", "roaming", "data_switch", "data_saver", "network_mode", "vpn", "data_usage"),
            prerequisites=("airplane",),
            success=(data_ok, excellent),
            failure=(
                _check(U, "assert_mobile_data_status", expected_status=False),
                _check(U, "assert_internet_speed", expected_speed=0, expected_desc=None),
            ),
            texts=MOBILE_DATA,
        ),
        Intent(
            name="service_issue",
            groups=("airplane", "sim_missing", "sim_locked", "apn", "suspension"),
            success=(_service("connected"), _check(A, "assert_no_overdue_bill", overdue_bill_id=bill_id)),
            failure=(_service("no_service"),),
            texts=SERVICE,
        ),
        Intent(
            name="mms_issue",
            groups=(
                "airplane",
                "sim_missing",
                "data_switch",
                "data_usage",
                "roaming",
                "network_mode",
                "wifi_calling",
                "apn_mms",
                "app_permissions",
            ),
            prerequisites=("airplane", "sim_missing", "data_switch", "data_usage", "roaming"),
            success=(_check(U, "assert_can_send_mms", expected_status=True),),
            failure=(_check(U, "assert_can_send_mms", expected_status=False),),
            texts=MMS,
        ),
    )


def _gb(value: float) -> float:
    """A data volume rounded to hundredths of a GB, so float sums print as written (15.0 + 0.1 → 15.1)."""
    return round(value, 2)


def eligible_targets(crm: TelecomDB) -> list[EligibleLine]:
    """Lines every subtask can be planted on: customers' primary lines first, each part in customer then
    line order.

    Rules: an Active account and an Active line of it with a phone, a plan that costs something (an
    overdue bill needs a price), a contract ending after today, nothing refuelled this cycle and usage
    below the allowance; the number binds to exactly this line and customer (no other line has it, and it
    is no other customer's primary number); the customer has no Overdue or Awaiting Payment bill.
    """
    targets = []
    for customer in crm.customers:
        bills = customer_bills(crm, customer)
        if customer.account_status is not AccountStatus.ACTIVE or any(
            bill.status in (BillStatus.OVERDUE, BillStatus.AWAITING_PAYMENT) for bill in bills
        ):
            continue
        for line_id in customer.line_ids:
            line = find_line(crm, line_id)
            plan = find_plan(crm, line.plan_id) if line else None
            device = find_device(crm, line.device_id) if line and line.device_id else None
            if (
                line is not None
                and line.status is LineStatus.ACTIVE
                and device is not None
                and device.device_type is DeviceType.PHONE
                and plan is not None
                and plan.price_per_month > 0
                and line.contract_end_date is not None
                and line.contract_end_date > TODAY
                and line.data_refueling_gb == 0
                and line.data_used_gb < plan.data_limit_gb
                and line_for_number(crm, line.phone_number) is line
                and customer_for_number(crm, line.phone_number) is customer
            ):
                targets.append(EligibleLine(customer, line, plan))
    return sorted(targets, key=lambda target: target.line.phone_number != target.customer.phone_number)


def unused_bill_id(crm: TelecomDB, above: str = "") -> str:
    """`OVERDUE_BILL_ID` (or, given `above`, the number after it), or the next number up that no bill uses."""
    number = int((above or OVERDUE_BILL_ID)[1:]) + (1 if above else 0)
    while find_bill(crm, f"B{number}") is not None:
        number += 1
    return f"B{number}"


def scenario_parameters(crm: TelecomDB, target: EligibleLine, bill_id: str) -> dict[str, str | float]:
    """Values the extended catalog uses beyond the target's own: the line's plan and device, the customer's
    surname and address, the plan a mistaken switch moves the line to, and unused IDs and numbers for the
    records a task adds (a second overdue bill, a family member's line, an old tablet's line, a partner and
    a namesake with a line each)."""
    customer, line, plan = target.customer, target.line, target.plan
    lines = spare_ids("L", (row.line_id for row in crm.lines), 4)
    customers = spare_ids("C", (row.customer_id for row in crm.customers), 2)
    numbers = spare_numbers(crm, line.phone_number, 4)
    parameters: dict[str, str | float] = {
        "device_id": line.device_id or "",
        "plan_id": plan.plan_id,
        "plan_name": plan.name,
        "plan_limit_gb": plan.data_limit_gb,
        "plan_price": plan.price_per_month,
        "contract_end": line.contract_end_date.isoformat() if line.contract_end_date else "",
        "second_bill_id": unused_bill_id(crm, above=bill_id),
        "surname": customer.full_name.split()[-1],
        **{f"address_{key}": value for key, value in customer.address.model_dump().items()},
    }
    for role, line_id, number in zip(("family", "old", "partner", "namesake"), lines, numbers, strict=True):
        parameters[f"{role}_line_id"] = line_id
        parameters[f"{role}_phone_number"] = number
    parameters["partner_customer_id"], parameters["namesake_customer_id"] = customers
    other = _switched_plan(crm, plan)
    if other is not None:
        parameters["other_plan_id"] = other.plan_id
        parameters["other_plan_name"] = other.name
    return parameters


def _switched_plan(crm: TelecomDB, plan: Plan) -> Plan | None:
    """The plan a mistaken switch puts the line on: the dearest priced plan cheaper than its own, else the
    cheapest dearer one; None when the data has no other plan."""
    others = [other for other in crm.plans if other.plan_id != plan.plan_id]
    cheaper = [other for other in others if 0 < other.price_per_month < plan.price_per_month]
    if cheaper:
        return max(cheaper, key=lambda other: other.price_per_month)
    return min(others, key=lambda other: other.price_per_month, default=None)


def build_catalog(
    target: EligibleLine, bill_id: str, scenario: dict[str, str | float] | None = None
) -> Catalog:
    """The catalog instantiated for one target line (`scenario`: further parameters for extensions)."""
    customer, line = target.customer, target.line
    return Catalog(
        version=VERSION,
        target=Target(
            key=f"{customer.customer_id}/{line.line_id}",
            facts={
                "customer_id": customer.customer_id,
                "line_id": line.line_id,
                "name": customer.full_name,
                "phone_number": line.phone_number,
            },
        ),
        groups=GROUPS,
        subtasks=_subtasks(target, bill_id),
        intents=_intents(bill_id),
        preamble=(_call(U, "set_user_info", name=customer.full_name, phone_number=line.phone_number),),
        stages=STAGES,
        fix_order=FIX_ORDER,
        injection_order=INJECTION_ORDER,
        facts={"refuel_gb": str(REFUEL_GB)},
        parameters={
            "customer_id": customer.customer_id,
            "line_id": line.line_id,
            "name": customer.full_name,
            "phone_number": line.phone_number,
            "bill_id": bill_id,
            "allowance_gb": _gb(target.plan.data_limit_gb + line.data_refueling_gb),
            "refueled_gb": line.data_refueling_gb,
            "refuel_gb": REFUEL_GB,
            "over_allowance_gb": OVER_ALLOWANCE_GB,
            **(scenario or {}),
        },
    )


class TelecomCatalog:
    """The telecom catalog source registered as the domain's catalog."""

    def catalogs(self, world: World) -> list[Catalog]:
        """One catalog per eligible target line of the world's CRM, in customer then line order."""
        crm = _state(world).crm
        bill_id = unused_bill_id(crm)
        return [
            build_catalog(target, bill_id, scenario_parameters(crm, target, bill_id))
            for target in eligible_targets(crm)
        ]

    def situation(self, world: World) -> dict[str, str]:
        """Where the customer is after initialisation."""
        return {"location": ABROAD if _state(world).surroundings.is_abroad else AT_HOME}

    def catalog_layers(self) -> dict[str, tuple[Path, ...]]:
        """`extended`: τ²-bench's faults plus the new ones of `catalogs/extended.toml`."""
        return {"extended": (EXTENDED_FAULTS,)}


def _state(world: World) -> TelecomState:
    state = world.state
    if not isinstance(state, TelecomState):
        raise TypeError(f"the telecom catalog needs a telecom world, not {type(state).__name__}")
    return state


CATALOG = TelecomCatalog()
