"""The env functions and assertions the faults beyond τ²-bench's need: a line's status set directly, a
location's coverage per technology, and assertions on line roaming, network mode, VPN, APN fields and
app permissions."""

from __future__ import annotations

import pytest
from telecom_support import TelecomData, fails, holds, line, ok, state

from tau2.domains.telecom import ConnectionStatus, LineStatus, NetworkTechnology, SignalStrength
from tau2.errors import ErrorCode
from tau2.world import World


@pytest.mark.parametrize("status", ["Pending Activation", "Closed", "Suspended", "Active"])
def test_set_line_status_cuts_service_unless_active(world: World, dataset: TelecomData, status: str) -> None:
    ids = dataset.subscriber.ids
    ok(world, "agent", "set_line_status", **ids, status=status)
    ok(world, "user", "simulate_network_search")
    record = line(world, ids["line_id"])
    assert record.status == LineStatus(status)
    assert (record.suspension_start_date is not None) == (status == "Suspended")
    connected = state(world).device.network_connection_status == ConnectionStatus.CONNECTED
    assert connected == (status == "Active")
    assert world.invariant_violations() == []


def test_a_pending_line_resumes_and_a_closed_one_does_not(world: World, dataset: TelecomData) -> None:
    ids = dataset.subscriber.ids
    ok(world, "agent", "set_line_status", **ids, status="Pending Activation")
    ok(world, "agent", "resume_line", **ids)
    ok(world, "agent", "set_line_status", **ids, status="Closed")
    fails(world, "agent", "resume_line", ErrorCode.INVALID_STATE, **ids)
    fails(world, "agent", "set_line_status", ErrorCode.INVALID_ARGUMENT, **ids, status="Gone")
    fails(
        world,
        "agent",
        "set_line_status",
        ErrorCode.NOT_FOUND,
        customer_id="C0000",
        line_id="L0",
        status="Closed",
    )


def test_set_signal_strength_changes_what_the_phone_registers_on(world: World) -> None:
    device = state(world).device
    ok(world, "user", "set_signal_strength", technology="5G", strength="none")
    assert state(world).surroundings.signal_strength[NetworkTechnology.FIVE_G] == SignalStrength.NONE
    assert (device.network_technology_connected, device.network_signal_strength) == ("4G", "good")
    assert holds(world, "user", "assert_internet_not_excellent")
    for technology in ("2G", "3G", "4G"):
        ok(world, "user", "set_signal_strength", technology=technology, strength="none")
    assert device.network_connection_status == ConnectionStatus.NO_SERVICE
    ok(world, "user", "set_signal_strength", technology="3G", strength="excellent")
    ok(world, "user", "set_network_mode_preference", mode="3g_only")
    assert (device.network_technology_connected, device.network_signal_strength) == ("3G", "excellent")
    fails(world, "user", "set_signal_strength", ErrorCode.INVALID_ARGUMENT, technology="6G", strength="good")


def test_assert_line_roaming_status(world: World, dataset: TelecomData) -> None:
    ids = dataset.subscriber.ids
    ok(world, "agent", "disable_roaming", **ids)
    assert holds(world, "agent", "assert_line_roaming_status", **ids, expected_status=False)
    assert not holds(world, "agent", "assert_line_roaming_status", **ids, expected_status=True)
    ok(world, "agent", "enable_roaming", **ids)
    assert holds(world, "agent", "assert_line_roaming_status", **ids, expected_status=True)


def test_assert_network_mode_preference_and_vpn(world: World) -> None:
    assert holds(world, "user", "assert_network_mode_preference", expected_mode="4g_5g_preferred")
    ok(world, "user", "set_network_mode_preference", mode="4g_only")
    assert holds(world, "user", "assert_network_mode_preference", expected_mode="4g_only")
    assert not holds(world, "user", "assert_network_mode_preference", expected_mode="4g_5g_preferred")
    assert holds(world, "user", "assert_vpn_connected", expected_status=False)
    ok(world, "user", "connect_vpn")
    assert holds(world, "user", "assert_vpn_connected", expected_status=True)


def test_assert_apn_setting(world: World) -> None:
    assert holds(world, "user", "assert_apn_setting", setting="apn_name", expected_value="internet")
    assert holds(world, "user", "assert_apn_setting", setting="mms_proxy"), "omitted: not set"
    assert not holds(world, "user", "assert_apn_setting", setting="mmsc_url")
    assert holds(world, "user", "assert_apn_setting", setting="reset_at_reboot", expected_value=False)
    assert not holds(world, "user", "assert_apn_setting", setting="reset_at_reboot", expected_value=0)
    ok(world, "user", "break_apn_mms_setting")
    ok(world, "user", "reset_apn_settings")
    assert holds(world, "user", "assert_apn_setting", setting="mmsc_url", expected_value=None)
    assert holds(world, "user", "assert_apn_setting", setting="reset_at_reboot", expected_value=True)
    fails(world, "user", "assert_apn_setting", ErrorCode.INVALID_ARGUMENT, setting="apn", expected_value="x")


def test_assert_app_permission(world: World) -> None:
    assert holds(
        world, "user", "assert_app_permission", app_name="messaging", permission="sms", expected_status=True
    )
    ok(world, "user", "remove_app_permission", app_name="messaging", permission="sms")
    assert holds(
        world, "user", "assert_app_permission", app_name="messaging", permission="sms", expected_status=False
    )
    assert holds(
        world, "user", "assert_app_permission", app_name="browser", permission="sms", expected_status=False
    )
    fails(
        world, "user", "assert_app_permission", ErrorCode.NOT_FOUND, app_name="radio", permission="sms",
        expected_status=True,
    )  # fmt: skip
