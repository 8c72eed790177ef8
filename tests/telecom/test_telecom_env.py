"""Env functions of both sides (spec §6): fault injection, ensure semantics and assertions."""

from __future__ import annotations

import pytest
from telecom_support import (
    UNKNOWN_NUMBER,
    UNUSED_BILL_ID,
    TelecomData,
    customer,
    fails,
    holds,
    line,
    observe,
    ok,
    plan,
    state,
)

from tau2.domains.telecom import BillStatus, ConnectionStatus, LineStatus, NetworkTechnology, SimCardStatus
from tau2.errors import ErrorCode
from tau2.world import Side, ToolKind, World


def overdue_suspension(data: TelecomData) -> dict[str, object]:
    """The arguments of `suspend_line_for_overdue_bill` for the subscriber's line and an unused bill ID."""
    return {**data.subscriber.ids, "new_bill_id": UNUSED_BILL_ID, "contract_ended": False}


def test_set_user_info_binds_and_rejects_unknown_numbers(unbound: World, dataset: TelecomData) -> None:
    fails(unbound, "user", "set_user_info", ErrorCode.NOT_FOUND, name="Ann", phone_number=UNKNOWN_NUMBER)
    assert state(unbound).surroundings.name is None
    number = dataset.overdue.phone_number
    ok(unbound, "user", "set_user_info", name="Sarah", phone_number=number)
    assert (state(unbound).surroundings.name, state(unbound).surroundings.phone_number) == ("Sarah", number)


def test_set_user_location_and_ensure_functions(world: World) -> None:
    device = state(world).device
    ok(world, "user", "set_user_location", abroad=True)
    assert state(world).surroundings.is_abroad
    for name, field, value in [
        ("turn_data_off", "data_enabled", False),
        ("turn_data_off", "data_enabled", False),
        ("turn_data_on", "data_enabled", True),
        ("turn_roaming_on", "roaming_enabled", True),
        ("turn_roaming_on", "roaming_enabled", True),
        ("turn_roaming_off", "roaming_enabled", False),
        ("turn_data_saver_mode_on", "data_saver_mode", True),
        ("turn_data_saver_mode_off", "data_saver_mode", False),
    ]:
        ok(world, "user", name)
        assert getattr(device, field) is value, name


def test_turn_airplane_mode_off_when_already_off_only_searches(world: World) -> None:
    """Δ7: the VPN survives (τ²-bench toggled twice and dropped it)."""
    ok(world, "user", "connect_vpn")
    ok(world, "user", "turn_airplane_mode_off")
    device = state(world).device
    assert device.vpn_connected and not device.airplane_mode
    assert device.network_signal_strength == "excellent", "the search ran"
    ok(world, "user", "turn_airplane_mode_on")
    ok(world, "user", "turn_airplane_mode_on")
    assert device.airplane_mode and not device.vpn_connected
    ok(world, "user", "turn_airplane_mode_off")
    assert device.network_connection_status == ConnectionStatus.CONNECTED


def test_lock_sim_card(world: World) -> None:
    fails(world, "user", "lock_sim_card", ErrorCode.INVALID_ARGUMENT, mode="pan")
    ok(world, "user", "lock_sim_card", mode="pin")
    assert state(world).device.sim_card_status == SimCardStatus.LOCKED_PIN
    assert state(world).device.network_connection_status == ConnectionStatus.NO_SERVICE


def test_set_wifi_calling_keeps_mms_over_wifi_unless_given(world: World) -> None:
    ok(world, "user", "set_wifi_calling", enabled=True, mms_over_wifi=True)
    ok(world, "user", "set_wifi_calling", enabled=False)
    device = state(world).device
    assert (device.wifi_calling_enabled, device.wifi_calling_mms_over_wifi) == (False, True)


def test_break_vpn_connects_with_a_poor_server(world: World) -> None:
    ok(world, "user", "break_vpn")
    assert holds(world, "user", "assert_internet_not_excellent") is True
    assert holds(world, "user", "assert_internet_speed", expected_speed=22.0, expected_desc="fair") is True
    ok(world, "user", "break_vpn")
    assert state(world).device.vpn_connected


def test_suspend_line_for_overdue_bill(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    ok(world, "agent", "suspend_line_for_overdue_bill", **overdue_suspension(dataset))
    created = state(world).crm.bills[-1]
    assert created.bill_id == UNUSED_BILL_ID
    assert customer(world, subscriber.customer_id).bill_ids[-1] == UNUSED_BILL_ID
    dates = [created.period_start, created.period_end, created.issue_date, created.due_date]
    assert [day.isoformat() for day in dates] == ["2025-01-01", "2025-01-31", "2025-01-01", "2025-01-15"]
    assert (created.status, created.total_due, len(created.line_items)) == (
        BillStatus.OVERDUE,
        subscriber.plan_price,
        1,
    )
    item = created.line_items[0]
    assert (item.amount, item.item_type, item.date.isoformat()) == (
        subscriber.plan_price,
        "Charge",
        "2025-02-25",
    )
    assert subscriber.line_id in item.description
    suspended = line(world, subscriber.line_id)
    start = suspended.suspension_start_date
    assert (suspended.status, start.isoformat() if start else None) == (LineStatus.SUSPENDED, "2025-02-25")
    end = suspended.contract_end_date
    assert end is not None and end.isoformat() == subscriber.contract_end_date
    exists = holds(
        world,
        "agent",
        "assert_overdue_bill_exists",
        customer_id=subscriber.customer_id,
        overdue_bill_id=UNUSED_BILL_ID,
    )
    assert exists is True
    assert holds(world, "agent", "assert_line_status", expected_status="Suspended", **subscriber.ids) is True
    assert state(world).device.network_connection_status == ConnectionStatus.CONNECTED, "no search"


def test_suspend_line_for_overdue_bill_can_end_the_contract(world: World, dataset: TelecomData) -> None:
    ok(
        world,
        "agent",
        "suspend_line_for_overdue_bill",
        **{**overdue_suspension(dataset), "contract_ended": True},
    )
    end = line(world, dataset.subscriber.line_id).contract_end_date
    assert end is not None and end.isoformat() == "2025-01-31"


def test_suspend_line_for_overdue_bill_checks(world: World, dataset: TelecomData) -> None:
    name, arguments = "suspend_line_for_overdue_bill", overdue_suspension(dataset)
    fails(world, "agent", name, ErrorCode.NOT_OWNED, **{**arguments, "line_id": dataset.overdue.line_id})
    fails(world, "agent", name, ErrorCode.NOT_FOUND, **{**arguments, "customer_id": "C9999"})
    fails(world, "agent", name, ErrorCode.INVALID_STATE, **{**arguments, **dataset.suspended_line.ids})
    existing = dataset.subscriber.paid_bill.bill_id
    fails(world, "agent", name, ErrorCode.CONFLICT, **{**arguments, "new_bill_id": existing})
    fails(world, "agent", name, ErrorCode.INVALID_ARGUMENT, **{**arguments, "new_bill_id": "X1"})
    fails(
        world,
        "agent",
        name,
        ErrorCode.CONFLICT,
        **dataset.overdue.ids,
        new_bill_id="B7",
        contract_ended=False,
    )
    plan(world, dataset.subscriber.plan_id).price_per_month = 0.0
    fails(world, "agent", name, ErrorCode.INVALID_STATE, **arguments)


def test_set_data_usage(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    limit = subscriber.data_limit_gb
    ok(world, "agent", "set_data_usage", data_used_gb=int(limit), **subscriber.ids)
    assert line(world, subscriber.line_id).data_used_gb == limit
    exceeded = holds(world, "user", "assert_mobile_data_usage_exceeded", expected_status=True)
    assert exceeded is True, "usage at the limit counts as exceeded"
    ok(world, "agent", "set_data_usage", data_used_gb=-0.0, **subscriber.ids)
    assert str(line(world, subscriber.line_id).data_used_gb) == "0.0", "-0.0 is stored as 0.0"
    for bad in (-1.0, float("nan"), float("inf")):
        fails(
            world, "agent", "set_data_usage", ErrorCode.INVALID_ARGUMENT, data_used_gb=bad, **subscriber.ids
        )
    fails(
        world,
        "agent",
        "set_data_usage",
        ErrorCode.NOT_OWNED,
        data_used_gb=1.0,
        customer_id=dataset.overdue.customer_id,
        line_id=subscriber.line_id,
    )


def test_agent_assertions(world: World, dataset: TelecomData) -> None:
    ids, overdue = dataset.subscriber.ids, dataset.overdue
    paid = dataset.subscriber.paid_bill.bill_id
    assert holds(world, "agent", "assert_data_refueling_amount", expected_amount=0, **ids) is True
    ok(world, "agent", "refuel_data", gb_amount=2.0, **ids)
    assert holds(world, "agent", "assert_data_refueling_amount", expected_amount=2.0000001, **ids) is True
    assert holds(world, "agent", "assert_data_refueling_amount", expected_amount=2.1, **ids) is False
    assert holds(world, "agent", "assert_line_status", expected_status="Active", **ids) is True
    fails(world, "agent", "assert_line_status", ErrorCode.INVALID_ARGUMENT, expected_status="active", **ids)
    fails(
        world,
        "agent",
        "assert_line_status",
        ErrorCode.NOT_OWNED,
        expected_status="Active",
        customer_id=overdue.customer_id,
        line_id=dataset.subscriber.line_id,
    )
    exists = "assert_overdue_bill_exists"
    owed = {"customer_id": overdue.customer_id, "overdue_bill_id": overdue.overdue_bill_id}
    assert holds(world, "agent", exists, **owed) is True
    subscriber_id = dataset.subscriber.customer_id
    for customer_id, bill_id in (
        (subscriber_id, overdue.overdue_bill_id),
        ("C9999", overdue.overdue_bill_id),
        (subscriber_id, paid),
        (subscriber_id, "B404"),
    ):
        assert holds(world, "agent", exists, customer_id=customer_id, overdue_bill_id=bill_id) is False
    assert holds(world, "agent", "assert_no_overdue_bill", overdue_bill_id=UNUSED_BILL_ID) is True
    assert holds(world, "agent", "assert_no_overdue_bill", overdue_bill_id=paid) is True
    assert holds(world, "agent", "assert_no_overdue_bill", overdue_bill_id=overdue.overdue_bill_id) is False


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("assert_airplane_mode_status", {"expected_status": False}, True),
        ("assert_service_status", {"expected_status": "connected"}, True),
        ("assert_service_status", {"expected_status": "no_service"}, False),
        ("assert_mobile_data_status", {"expected_status": True}, True),
        ("assert_mobile_roaming_status", {"expected_status": False}, True),
        ("assert_mobile_data_saver_mode_status", {"expected_status": True}, False),
        ("assert_internet_speed", {"expected_speed": 200, "expected_desc": "EXCELLENT"}, True),
        ("assert_internet_speed", {"expected_speed": 220.01}, False),
        ("assert_internet_speed", {"expected_speed": 0, "expected_desc": "good"}, False),
        ("assert_internet_not_excellent", {}, False),
        ("assert_can_send_mms", {"expected_status": True}, True),
        ("assert_mobile_data_usage_exceeded", {"expected_status": False}, True),
    ],
)
def test_user_assertions_on_the_baseline(
    world: World, name: str, arguments: dict[str, object], expected: bool
) -> None:
    assert holds(world, "user", name, **arguments) is expected


def test_assertions_without_connection(world: World) -> None:
    ok(world, "user", "turn_airplane_mode_on")
    assert (
        holds(world, "user", "assert_internet_speed", expected_speed=0, expected_desc="No Connection") is True
    )
    assert holds(world, "user", "assert_internet_speed", expected_speed=0) is True
    assert holds(world, "user", "assert_internet_speed", expected_speed=0.1) is False
    assert holds(world, "user", "assert_internet_not_excellent") is True


def test_assert_service_status_rejects_unknown_values(world: World) -> None:
    fails(world, "user", "assert_service_status", ErrorCode.INVALID_ARGUMENT, expected_status="online")
    fails(world, "user", "assert_service_status", ErrorCode.INVALID_ARGUMENT, expected_status=True)


def test_break_apn_mms_setting_does_not_search(world: World) -> None:
    ok(world, "user", "break_apn_mms_setting")
    assert state(world).device.network_technology_connected == NetworkTechnology.FIVE_G
    assert state(world).device.network_signal_strength == "good"
    assert holds(world, "user", "assert_can_send_mms", expected_status=False) is True


def test_every_assertion_reports_what_it_observed(world: World, dataset: TelecomData) -> None:
    ids = dataset.subscriber.ids
    bill = {"customer_id": dataset.subscriber.customer_id, "overdue_bill_id": UNUSED_BILL_ID}
    arguments: dict[str, dict[str, object]] = {
        "assert_data_refueling_amount": {**ids, "expected_amount": 1.0},
        "assert_line_status": {**ids, "expected_status": "Suspended"},
        "assert_overdue_bill_exists": bill,
        "assert_no_overdue_bill": {"overdue_bill_id": dataset.overdue.overdue_bill_id},
        "assert_airplane_mode_status": {"expected_status": True},
        "assert_service_status": {"expected_status": "no_service"},
        "assert_mobile_data_status": {"expected_status": False},
        "assert_mobile_roaming_status": {"expected_status": True},
        "assert_mobile_data_saver_mode_status": {"expected_status": True},
        "assert_internet_speed": {"expected_speed": 500},
        "assert_internet_not_excellent": {},
        "assert_can_send_mms": {"expected_status": False},
        "assert_mobile_data_usage_exceeded": {"expected_status": True},
        "assert_line_roaming_status": {**ids, "expected_status": False},
        "assert_network_mode_preference": {"expected_mode": "2g_only"},
        "assert_vpn_connected": {"expected_status": True},
        "assert_apn_setting": {"setting": "mmsc_url"},
        "assert_app_permission": {"app_name": "messaging", "permission": "storage", "expected_status": False},
    }
    declared = {
        (tool.side.value, tool.name)
        for side in (Side.AGENT, Side.USER)
        for tool in world.tools.env_functions(side)
        if not tool.is_tool and tool.kind is ToolKind.READ
    }
    assert {name for _, name in declared} == set(arguments), "every assertion of the domain is tried"
    observed = {name: observe(world, side, name, **arguments[name]) for side, name in sorted(declared)}
    assert [name for name, verdict in observed.items() if verdict.holds] == [], "each fails on the baseline"
    assert {name: verdict.observed for name, verdict in observed.items()} == {
        "assert_data_refueling_amount": 0.0,
        "assert_line_status": "Active",
        "assert_overdue_bill_exists": {"status": None, "customer_has_bill": False},
        "assert_no_overdue_bill": {"status": "Overdue"},
        "assert_airplane_mode_status": False,
        "assert_service_status": "connected",
        "assert_mobile_data_status": True,
        "assert_mobile_roaming_status": False,
        "assert_mobile_data_saver_mode_status": False,
        "assert_internet_speed": {"speed": 220.0, "desc": "Excellent"},
        "assert_internet_not_excellent": "Excellent",
        "assert_can_send_mms": True,
        "assert_mobile_data_usage_exceeded": False,
        "assert_line_roaming_status": True,
        "assert_network_mode_preference": "4g_5g_preferred",
        "assert_vpn_connected": False,
        "assert_apn_setting": "http://mms.carrier.com/mms/wapenc",
        "assert_app_permission": True,
    }
