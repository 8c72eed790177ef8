"""Env functions of both sides (spec §6): fault injection, ensure semantics and assertions."""

from __future__ import annotations

import pytest
from telecom_support import C1001_L1002, fails, ok, state

from tau2.domains.telecom import BillStatus, ConnectionStatus, LineStatus, NetworkTechnology, SimCardStatus
from tau2.errors import ErrorCode
from tau2.world import World

OVERDUE = {**C1001_L1002, "new_bill_id": "B1234321", "contract_ended": False}


def test_set_user_info_binds_and_rejects_unknown_numbers(unbound: World) -> None:
    fails(unbound, "user", "set_user_info", ErrorCode.NOT_FOUND, name="Ann", phone_number="555-000-0000")
    assert state(unbound).surroundings.name is None
    ok(unbound, "user", "set_user_info", name="Sarah", phone_number="555-123-2004")
    assert (state(unbound).surroundings.name, state(unbound).surroundings.phone_number) == (
        "Sarah",
        "555-123-2004",
    )


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
    assert ok(world, "user", "assert_internet_not_excellent") is True
    assert ok(world, "user", "assert_internet_speed", expected_speed=22.0, expected_desc="fair") is True
    ok(world, "user", "break_vpn")
    assert state(world).device.vpn_connected


def test_suspend_line_for_overdue_bill(world: World) -> None:
    ok(world, "agent", "suspend_line_for_overdue_bill", **OVERDUE)
    crm = state(world).crm
    bill = crm.bills[-1]
    assert bill.bill_id == "B1234321" and crm.customers[0].bill_ids[-1] == "B1234321"
    dates = [bill.period_start, bill.period_end, bill.issue_date, bill.due_date]
    assert [day.isoformat() for day in dates] == ["2025-01-01", "2025-01-31", "2025-01-01", "2025-01-15"]
    assert (bill.status, bill.total_due, len(bill.line_items)) == (BillStatus.OVERDUE, 65.0, 1)
    item = bill.line_items[0]
    assert (item.amount, item.item_type, item.date.isoformat()) == (65.0, "Charge", "2025-02-25")
    assert "L1002" in item.description
    line = crm.lines[1]
    assert (line.status, line.suspension_start_date.isoformat() if line.suspension_start_date else None) == (
        LineStatus.SUSPENDED,
        "2025-02-25",
    )
    assert line.contract_end_date is not None and line.contract_end_date.isoformat() == "2026-12-31"
    assert (
        ok(world, "agent", "assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B1234321")
        is True
    )
    assert ok(world, "agent", "assert_line_status", expected_status="Suspended", **C1001_L1002) is True
    assert state(world).device.network_connection_status == ConnectionStatus.CONNECTED, "no search"


def test_suspend_line_for_overdue_bill_can_end_the_contract(world: World) -> None:
    ok(world, "agent", "suspend_line_for_overdue_bill", **{**OVERDUE, "contract_ended": True})
    end = state(world).crm.lines[1].contract_end_date
    assert end is not None and end.isoformat() == "2025-01-31"


def test_suspend_line_for_overdue_bill_checks(world: World) -> None:
    name = "suspend_line_for_overdue_bill"
    fails(world, "agent", name, ErrorCode.NOT_OWNED, **{**OVERDUE, "line_id": "L1004"})
    fails(world, "agent", name, ErrorCode.NOT_FOUND, **{**OVERDUE, "customer_id": "C9999"})
    fails(world, "agent", name, ErrorCode.INVALID_STATE, **{**OVERDUE, "line_id": "L1003"})
    fails(world, "agent", name, ErrorCode.CONFLICT, **{**OVERDUE, "new_bill_id": "B1001"})
    fails(world, "agent", name, ErrorCode.INVALID_ARGUMENT, **{**OVERDUE, "new_bill_id": "X1"})
    fails(
        world,
        "agent",
        name,
        ErrorCode.CONFLICT,
        customer_id="C1002",
        line_id="L1004",
        new_bill_id="B7",
        contract_ended=False,
    )
    state(world).crm.plans[1].price_per_month = 0.0
    fails(world, "agent", name, ErrorCode.INVALID_STATE, **OVERDUE)


def test_set_data_usage(world: World) -> None:
    ok(world, "agent", "set_data_usage", data_used_gb=15, **C1001_L1002)
    assert state(world).crm.lines[1].data_used_gb == 15.0
    assert ok(world, "user", "assert_mobile_data_usage_exceeded", expected_status=True) is True
    ok(world, "agent", "set_data_usage", data_used_gb=-0.0, **C1001_L1002)
    assert str(state(world).crm.lines[1].data_used_gb) == "0.0", "-0.0 is stored as 0.0"
    for bad in (-1.0, float("nan"), float("inf")):
        fails(world, "agent", "set_data_usage", ErrorCode.INVALID_ARGUMENT, data_used_gb=bad, **C1001_L1002)
    fails(
        world,
        "agent",
        "set_data_usage",
        ErrorCode.NOT_OWNED,
        data_used_gb=1.0,
        customer_id="C1002",
        line_id="L1002",
    )


def test_agent_assertions(world: World) -> None:
    assert ok(world, "agent", "assert_data_refueling_amount", expected_amount=0, **C1001_L1002) is True
    ok(world, "agent", "refuel_data", gb_amount=2.0, **C1001_L1002)
    assert (
        ok(world, "agent", "assert_data_refueling_amount", expected_amount=2.0000001, **C1001_L1002) is True
    )
    assert ok(world, "agent", "assert_data_refueling_amount", expected_amount=2.1, **C1001_L1002) is False
    assert ok(world, "agent", "assert_line_status", expected_status="Active", **C1001_L1002) is True
    fails(
        world,
        "agent",
        "assert_line_status",
        ErrorCode.INVALID_ARGUMENT,
        expected_status="active",
        **C1001_L1002,
    )
    fails(
        world,
        "agent",
        "assert_line_status",
        ErrorCode.NOT_OWNED,
        expected_status="Active",
        customer_id="C1002",
        line_id="L1002",
    )
    assert (
        ok(world, "agent", "assert_overdue_bill_exists", customer_id="C1002", overdue_bill_id="B1005") is True
    )
    for customer_id, bill_id in (
        ("C1001", "B1005"),
        ("C9999", "B1005"),
        ("C1001", "B1001"),
        ("C1001", "B404"),
    ):
        assert (
            ok(world, "agent", "assert_overdue_bill_exists", customer_id=customer_id, overdue_bill_id=bill_id)
            is False
        )
    assert ok(world, "agent", "assert_no_overdue_bill", overdue_bill_id="B1234321") is True
    assert ok(world, "agent", "assert_no_overdue_bill", overdue_bill_id="B1001") is True
    assert ok(world, "agent", "assert_no_overdue_bill", overdue_bill_id="B1005") is False


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
    assert ok(world, "user", name, **arguments) is expected


def test_assertions_without_connection(world: World) -> None:
    ok(world, "user", "turn_airplane_mode_on")
    assert ok(world, "user", "assert_internet_speed", expected_speed=0, expected_desc="No Connection") is True
    assert ok(world, "user", "assert_internet_speed", expected_speed=0) is True
    assert ok(world, "user", "assert_internet_speed", expected_speed=0.1) is False
    assert ok(world, "user", "assert_internet_not_excellent") is True


def test_assert_service_status_rejects_unknown_values(world: World) -> None:
    fails(world, "user", "assert_service_status", ErrorCode.INVALID_ARGUMENT, expected_status="online")
    fails(world, "user", "assert_service_status", ErrorCode.INVALID_ARGUMENT, expected_status=True)


def test_break_apn_mms_setting_does_not_search(world: World) -> None:
    ok(world, "user", "break_apn_mms_setting")
    assert state(world).device.network_technology_connected == NetworkTechnology.FIVE_G
    assert state(world).device.network_signal_strength == "good"
    assert ok(world, "user", "assert_can_send_mms", expected_status=False) is True
