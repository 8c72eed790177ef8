"""Coupling of CRM and phone (spec §3), which operations search (§2.1), the reference baseline (§1.3), the
§10 walk-through and the τ²-bench small task set replayed end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from telecom_support import REFERENCE, UNUSED_BILL_ID, TelecomData, fails, holds, make_world, ok, state

from tau2.domains.telecom import ConnectionStatus, NetworkTechnology, SignalStrength
from tau2.domains.telecom.binding import line_active, payment_request, roaming_allowed, usage_exceeded
from tau2.domains.telecom.network import speed_test
from tau2.errors import ErrorCode
from tau2.world import World

SIDES = {"assistant": "agent", "user": "user"}

SEARCHING: list[tuple[str, dict[str, Any]]] = [
    ("set_network_mode_preference", {"mode": "4g_5g_preferred"}),
    ("toggle_airplane_mode", {}),
    ("reseat_sim_card", {}),
    ("toggle_data", {}),
    ("toggle_roaming", {}),
    ("set_apn_settings", {"apn_settings": {}}),
    ("reset_apn_settings", {}),
    ("reboot_device", {}),
    ("simulate_network_search", {}),
    ("unseat_sim_card", {}),
    ("lock_sim_card", {"mode": "pin"}),
    ("break_apn_settings", {}),
    ("turn_airplane_mode_on", {}),
    ("turn_airplane_mode_off", {}),
    ("turn_roaming_on", {}),
    ("turn_roaming_off", {}),
    ("turn_data_off", {}),
    ("turn_data_on", {}),
]
Arguments = dict[str, Any] | Callable[[TelecomData], dict[str, Any]]
"""A call's arguments, or how to make them from the data set's records."""

NOT_SEARCHING: list[tuple[str, str, Arguments]] = [
    ("user", "toggle_data_saver_mode", {}),
    ("user", "toggle_wifi", {}),
    ("user", "toggle_wifi_calling", {}),
    ("user", "connect_vpn", {}),
    ("user", "disconnect_vpn", {}),
    ("user", "grant_app_permission", {"app_name": "browser", "permission": "sms"}),
    ("user", "make_payment", {}),
    ("user", "set_user_info", lambda data: data.subscriber.user_info),
    ("user", "set_user_location", {"abroad": True}),
    ("user", "turn_data_saver_mode_on", {}),
    ("user", "turn_data_saver_mode_off", {}),
    ("user", "break_apn_mms_setting", {}),
    ("user", "set_wifi_calling", {"enabled": True, "mms_over_wifi": True}),
    ("user", "break_vpn", {}),
    ("user", "remove_app_permission", {"app_name": "messaging", "permission": "sms"}),
    ("user", "assert_service_status", {"expected_status": "connected"}),
    ("agent", "suspend_line", lambda data: {**data.subscriber.ids, "reason": "test"}),
    ("agent", "disable_roaming", lambda data: data.subscriber.ids),
    ("agent", "refuel_data", lambda data: {**data.subscriber.ids, "gb_amount": 1.0}),
    ("agent", "set_data_usage", lambda data: {**data.subscriber.ids, "data_used_gb": 20.0}),
    (
        "agent",
        "suspend_line_for_overdue_bill",
        lambda data: {**data.subscriber.ids, "new_bill_id": "B9", "contract_ended": False},
    ),
] + [
    ("user", name, {})
    for name in ("check_status_bar", "check_network_status", "run_speed_test", "can_send_mms")
]


def stale(world: World) -> World:
    """Make the stored registration (5G/good) differ from what a search would now give (5G/fair)."""
    state(world).surroundings.signal_strength[NetworkTechnology.FIVE_G] = SignalStrength.FAIR
    return world


def registration(world: World) -> tuple[str, str, str]:
    device = state(world).device
    return (
        device.network_connection_status.value,
        device.network_technology_connected.value,
        device.network_signal_strength.value,
    )


@pytest.mark.parametrize(("name", "arguments"), SEARCHING, ids=[name for name, _ in SEARCHING])
def test_operations_that_search(world: World, name: str, arguments: dict[str, Any]) -> None:
    stale(world)
    ok(world, "user", name, **arguments)
    found = registration(world)
    ok(world, "user", "simulate_network_search")
    assert found == registration(world) != ("connected", "5G", "good")


@pytest.mark.parametrize(
    ("side", "name", "arguments"), NOT_SEARCHING, ids=[name for _, name, _ in NOT_SEARCHING]
)
def test_operations_that_do_not_search(
    world: World, dataset: TelecomData, side: str, name: str, arguments: Arguments
) -> None:
    subscriber = dataset.subscriber
    ok(
        world,
        "agent",
        "send_payment_request",
        customer_id=subscriber.customer_id,
        bill_id=subscriber.issued_bill.bill_id,
    )
    stale(world)
    ok(world, side, name, **(arguments(dataset) if callable(arguments) else arguments))
    assert registration(world) == ("connected", "5G", "good")


def test_failing_operations_never_search(world: World) -> None:
    stale(world)
    fails(world, "user", "set_network_mode_preference", ErrorCode.INVALID_ARGUMENT, mode="6g")
    fails(world, "user", "lock_sim_card", ErrorCode.INVALID_ARGUMENT, mode="x")
    assert registration(world) == ("connected", "5G", "good")


def test_reference_baseline_derived_facts(world: World) -> None:
    s = state(world)
    assert (line_active(s), roaming_allowed(s), usage_exceeded(s), payment_request(s)) == (
        True,
        True,
        False,
        None,
    )
    assert registration(world) == ("connected", "5G", "good")
    assert speed_test(s) == (220.0, "Excellent")
    assert holds(world, "user", "assert_can_send_mms", expected_status=True)
    ok(world, "user", "simulate_network_search")
    assert registration(world) == ("connected", "5G", "excellent")
    assert speed_test(s) == (275.0, "Excellent")


def test_record_counts(world: World, dataset: TelecomData) -> None:
    crm = state(world).crm
    sizes = (len(crm.plans), len(crm.customers), len(crm.lines), len(crm.devices), len(crm.bills))
    assert sizes == dataset.record_counts
    assert sum(len(customer.payment_methods) for customer in crm.customers) == dataset.payment_method_count


def test_resumed_line_stays_without_service_until_a_search(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    ok(
        world,
        "agent",
        "suspend_line_for_overdue_bill",
        **subscriber.ids,
        new_bill_id=UNUSED_BILL_ID,
        contract_ended=False,
    )
    assert not line_active(state(world)), "visible at once"
    assert registration(world)[0] == "connected", "the old registration stays until a search"
    ok(world, "user", "simulate_network_search")
    assert registration(world)[0] == "no_service"
    ok(world, "agent", "send_payment_request", customer_id=subscriber.customer_id, bill_id=UNUSED_BILL_ID)
    ok(world, "user", "make_payment")
    assert holds(world, "agent", "assert_no_overdue_bill", overdue_bill_id=UNUSED_BILL_ID) is True
    ok(world, "agent", "resume_line", **subscriber.ids)
    assert line_active(state(world))
    assert registration(world) == ("no_service", "none", "none")
    ok(world, "user", "reboot_device")
    assert registration(world) == ("connected", "5G", "excellent")


def test_apn_reset_waits_for_the_reboot(world: World) -> None:
    ok(world, "user", "break_apn_settings")
    ok(world, "user", "reset_apn_settings")
    device = state(world).device
    assert device.active_apn_settings.apn_name == "broken" and device.active_apn_settings.reset_at_reboot
    assert device.network_connection_status == ConnectionStatus.NO_SERVICE
    ok(world, "user", "reboot_device")
    assert device.active_apn_settings.apn_name == "internet"
    assert device.network_connection_status == ConnectionStatus.CONNECTED


def test_carrier_roaming_is_visible_at_once(world: World, dataset: TelecomData) -> None:
    ok(world, "user", "set_user_location", abroad=True)
    ok(world, "user", "turn_roaming_on")
    assert holds(world, "user", "assert_mobile_data_status", expected_status=True)
    ok(world, "agent", "disable_roaming", **dataset.subscriber.ids)
    assert not roaming_allowed(state(world))
    assert holds(world, "user", "assert_internet_speed", expected_speed=0, expected_desc="No Connection")
    ok(world, "agent", "enable_roaming", **dataset.subscriber.ids)
    assert holds(world, "user", "assert_mobile_data_status", expected_status=True)


def test_usage_and_refuel_are_visible_at_once(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    ok(world, "agent", "set_data_usage", data_used_gb=subscriber.data_limit_gb, **subscriber.ids)
    assert usage_exceeded(state(world)) and not holds(
        world, "user", "assert_mobile_data_status", expected_status=True
    )
    ok(world, "agent", "refuel_data", gb_amount=0.5, **subscriber.ids)
    assert not usage_exceeded(state(world))
    assert "220.00" in ok(world, "user", "run_speed_test")


def test_payment_requests_follow_the_first_awaiting_bill(world: World, dataset: TelecomData) -> None:
    subscriber, issued = dataset.subscriber, dataset.subscriber.issued_bill
    ok(world, "agent", "send_payment_request", customer_id=subscriber.customer_id, bill_id=issued.bill_id)
    request = payment_request(state(world))
    assert request is not None
    assert (request.bill_id, request.amount_due, request.paid) == (issued.bill_id, issued.total_due, False)
    ok(world, "user", "make_payment")
    assert payment_request(state(world)) is None
    assert state(world).surroundings.payment_request is None, "nothing is stored while bound"


def test_phone_settings_are_visible_at_once(world: World) -> None:
    for name, expected in (("turn_data_saver_mode_on", 44.0), ("break_vpn", 4.4), ("disconnect_vpn", 44.0)):
        ok(world, "user", name)
        assert speed_test(state(world)).speed == expected
    ok(world, "user", "set_wifi_calling", enabled=True, mms_over_wifi=True)
    assert holds(world, "user", "assert_can_send_mms", expected_status=False)


def test_unbound_phone_uses_the_stored_coupled_values(unbound: World, dataset: TelecomData) -> None:
    surroundings = state(unbound).surroundings
    surroundings.line_active = False
    ok(unbound, "user", "simulate_network_search")
    assert registration(unbound)[0] == "no_service"
    ok(unbound, "user", "set_user_info", **dataset.subscriber.user_info)
    assert line_active(state(unbound)) and surroundings.line_active is True
    ok(unbound, "user", "simulate_network_search")
    assert registration(unbound)[0] == "connected"


def test_binding_follows_the_number(unbound: World, dataset: TelecomData) -> None:
    ok(unbound, "user", "set_user_info", **dataset.suspended_line.user_info)
    assert not line_active(state(unbound)) and not roaming_allowed(state(unbound))
    ok(unbound, "user", "set_user_info", **dataset.roaming_line.user_info)
    assert usage_exceeded(state(unbound)) is False and roaming_allowed(state(unbound))


def test_walk_through_of_spec_section_10(world: World, dataset: TelecomData) -> None:
    ids, over_the_limit = dataset.subscriber.ids, dataset.subscriber.data_limit_gb + 0.1
    ok(world, "user", "turn_data_saver_mode_on")
    ok(world, "agent", "set_data_usage", data_used_gb=over_the_limit, **ids)
    assert registration(world) == ("connected", "5G", "good")
    assert usage_exceeded(state(world)) and speed_test(state(world)) == (None, "No Connection")
    fix = world.snapshot()
    ok(world, "user", "toggle_data_saver_mode")
    assert speed_test(state(world)) == (None, "No Connection")
    ok(world, "agent", "refuel_data", gb_amount=2.0, **ids)
    assert speed_test(state(world)) == (220.0, "Excellent")
    assert holds(world, "agent", "assert_data_refueling_amount", expected_amount=2.0, **ids)
    world.restore(fix)
    ok(world, "agent", "refuel_data", gb_amount=2.0, **ids)
    assert speed_test(state(world)) == (44.0, "Good")


def test_tau2_small_tasks_pass_with_their_gold_actions(reference_dir: Path) -> None:
    tasks = json.loads((reference_dir / "tasks_small.json").read_text())
    assert len(tasks) == 20
    for task in tasks:
        world = make_world(REFERENCE, bind=False)
        for call in task["initial_state"]["initialization_actions"]:
            ok(world, SIDES[call["env_type"]], call["func_name"], **call["arguments"])
        criteria = task["evaluation_criteria"]
        transfer = criteria["actions"][0]["name"] == "transfer_to_human_agents"
        passing = [
            holds(world, SIDES[check["env_type"]], check["func_name"], **check["arguments"])
            for check in criteria["env_assertions"]
        ]
        assert all(passing) is transfer, f"{task['id']}: the fault must show before the fix"
        for action in criteria["actions"]:
            ok(world, SIDES[action["requestor"]], action["name"], **action["arguments"])
        for check in criteria["env_assertions"]:
            value = holds(world, SIDES[check["env_type"]], check["func_name"], **check["arguments"])
            assert value is check.get("assert_value", True), (task["id"], check)
        assert world.invariant_violations() == []
