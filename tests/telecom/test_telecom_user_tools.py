"""The 30 user tools (spec §5): rendered reads, write effects with the status bar, errors and no-ops."""

from __future__ import annotations

import pytest
from telecom_support import TelecomData, bill, fails, ok, state

from tau2.domains.telecom import (
    ApnName,
    ConnectionStatus,
    NetworkModePreference,
    PaymentRequest,
    SignalStrength,
    VpnPerformance,
)
from tau2.errors import ErrorCode
from tau2.world import Side, ToolKind, World


def test_read_tools_return_one_text_block_and_change_nothing(world: World) -> None:
    before = world.fingerprint()
    for tool in world.tools.tools(Side.USER):
        if tool.kind is ToolKind.READ:
            arguments = {"app_name": "messaging"} if "app_name" in tool.arguments_model.model_fields else {}
            content = ok(world, "user", tool.name, **arguments)
            assert isinstance(content, str) and content, tool.name
    assert world.fingerprint() == before


def test_write_tools_report_the_status_bar_except_make_payment(world: World) -> None:
    arguments = {
        "set_network_mode_preference": {"mode": "4g_only"},
        "set_apn_settings": {"apn_settings": {}},
        "grant_app_permission": {"app_name": "browser", "permission": "phone"},
    }
    fresh = world.snapshot()
    for tool in world.tools.tools(Side.USER):
        if tool.kind is ToolKind.WRITE and tool.name != "make_payment":
            world.restore(fresh)
            content = ok(world, "user", tool.name, **arguments.get(tool.name, {}))
            assert content["status_bar"] == ok(world, "user", "check_status_bar").removeprefix("Status bar: ")
            assert content["message"]


def test_check_network_status(world: World) -> None:
    text = ok(world, "user", "check_network_status")
    for expected in (
        "Airplane mode: off",
        "SIM card: active",
        "Cellular connection: connected",
        "Signal strength: good",
        "Network type: 5G",
        "Mobile data: on",
        "Data roaming: off",
        "Wi-Fi: off",
        "Wi-Fi connected: no",
    ):
        assert expected in text


def test_set_network_mode_preference_searches_and_rejects_bad_modes(world: World) -> None:
    content = ok(world, "user", "set_network_mode_preference", mode="3g_only")
    assert content["network_mode_preference"] == "3g_only" and "| 3G |" in content["status_bar"]
    assert state(world).device.network_mode_preference == NetworkModePreference.THREE_G_ONLY
    assert ok(world, "user", "check_network_mode_preference").endswith("3g_only")
    for bad in ("5g_only", "4G_ONLY", 3):
        fails(world, "user", "set_network_mode_preference", ErrorCode.INVALID_ARGUMENT, mode=bad)


def test_run_speed_test_texts(world: World) -> None:
    assert ok(world, "user", "run_speed_test").startswith("Download speed: 220.00 Mbps (Excellent).")
    ok(world, "user", "turn_data_off")
    assert "No Connection" in ok(world, "user", "run_speed_test")


def test_airplane_mode_drops_wifi_and_vpn_and_service(world: World) -> None:
    device = state(world).device
    device.wifi_enabled = device.wifi_connected = True
    device.wifi_ssid, device.wifi_signal_strength = "Cafe", SignalStrength.GOOD
    ok(world, "user", "connect_vpn")
    content = ok(world, "user", "toggle_airplane_mode")
    assert content["airplane_mode"] is True and content["status_bar"] == "Airplane Mode | Battery 80%"
    assert (device.wifi_enabled, device.wifi_connected, device.wifi_ssid, device.wifi_signal_strength) == (
        True,
        False,
        None,
        SignalStrength.NONE,
    )
    assert not device.vpn_connected and device.vpn_details is None
    assert device.network_connection_status == ConnectionStatus.NO_SERVICE
    ok(world, "user", "connect_vpn")
    assert device.vpn_connected, "a VPN may connect in airplane mode"
    assert ok(world, "user", "toggle_airplane_mode")["airplane_mode"] is False
    assert device.network_connection_status == ConnectionStatus.CONNECTED
    assert device.network_signal_strength == SignalStrength.EXCELLENT


def test_sim_tools(world: World) -> None:
    assert ok(world, "user", "check_sim_status") == "SIM card: active."
    ok(world, "user", "lock_sim_card", mode="puk")
    assert "PUK" in ok(world, "user", "check_sim_status")
    ok(world, "user", "unseat_sim_card")
    assert "no SIM" in ok(world, "user", "check_sim_status")
    assert ok(world, "user", "reseat_sim_card")["sim_status"] == "locked_puk", (
        "a reseat reveals the lock (Δ3)"
    )
    assert state(world).device.network_connection_status == ConnectionStatus.NO_SERVICE


def test_toggles(world: World) -> None:
    assert ok(world, "user", "toggle_data")["data_enabled"] is False
    assert "Data Disabled" in ok(world, "user", "check_status_bar")
    assert ok(world, "user", "toggle_roaming")["roaming_enabled"] is True
    assert ok(world, "user", "toggle_data_saver_mode")["data_saver_mode"] is True
    assert ok(world, "user", "check_data_restriction_status") == "Data saver mode: on"
    assert ok(world, "user", "toggle_wifi_calling")["wifi_calling_enabled"] is True
    assert ok(world, "user", "check_wifi_calling_status") == "Wi-Fi calling: on"
    assert state(world).device.wifi_calling_mms_over_wifi is False


def test_apn_tools(world: World) -> None:
    assert "MMSC URL: http://mms.carrier.com/mms/wapenc" in ok(world, "user", "check_apn_settings")
    ok(world, "user", "break_apn_mms_setting")
    assert "MMSC URL: not set" in ok(world, "user", "check_apn_settings")
    state(world).device.active_apn_settings.mmsc_url = ""
    assert "MMSC URL: not set" in ok(world, "user", "check_apn_settings")
    content = ok(world, "user", "set_apn_settings", apn_settings={"apn_name": "broken", "mms_port": 8080})
    assert content["apn_name"] == "broken"
    apn = state(world).device.active_apn_settings
    assert (apn.mms_port, apn.mmsc_url) == (8080, "http://mms.carrier.com/mms/wapenc")
    assert state(world).device.network_connection_status == ConnectionStatus.NO_SERVICE
    ok(world, "user", "reset_apn_settings")
    ok(world, "user", "set_apn_settings", apn_settings={})
    assert state(world).device.active_apn_settings.reset_at_reboot is False, (
        "a replacement clears a pending reset"
    )
    assert state(world).device.network_connection_status == ConnectionStatus.CONNECTED


@pytest.mark.parametrize(
    "payload", [{"apn_name": "vodafone"}, {"colour": "red"}, {"mms_port": "many"}, "internet", None]
)
def test_set_apn_settings_rejects_bad_payloads(world: World, payload: object) -> None:
    fails(world, "user", "set_apn_settings", ErrorCode.INVALID_ARGUMENT, apn_settings=payload)


def test_reboot_applies_a_pending_apn_reset(world: World) -> None:
    ok(world, "user", "break_apn_settings")
    state(world).device.active_apn_settings.mms_port = 9
    assert ok(world, "user", "reboot_device")["apn_reset"] is False
    ok(world, "user", "reset_apn_settings")
    content = ok(world, "user", "reboot_device")
    assert content["apn_reset"] is True and "| 5G |" in content["status_bar"]
    assert state(world).device.active_apn_settings.model_dump() == {
        "apn_name": ApnName.INTERNET,
        "reset_at_reboot": False,
        "mms_apn": "mms",
        "mmsc_url": "http://mms.carrier.com/mms/wapenc",
        "mms_proxy": None,
        "mms_port": None,
    }


def test_wifi_tools(world: World) -> None:
    assert ok(world, "user", "check_wifi_status") == "Wi-Fi is off."
    assert ok(world, "user", "toggle_wifi")["wifi_enabled"] is True
    assert ok(world, "user", "check_wifi_status") == "Wi-Fi is on but not connected to any network."
    device = state(world).device
    device.wifi_connected, device.wifi_ssid, device.wifi_signal_strength = True, "Home", SignalStrength.FAIR
    assert ok(world, "user", "check_wifi_status") == "Wi-Fi is connected to Home (signal: fair)."
    assert "Wi-Fi network: Home" in ok(world, "user", "check_network_status")
    ok(world, "user", "toggle_wifi")
    assert (device.wifi_connected, device.wifi_ssid, device.wifi_signal_strength) == (
        False,
        None,
        SignalStrength.NONE,
    )
    ok(world, "user", "turn_airplane_mode_on")
    fails(world, "user", "toggle_wifi", ErrorCode.INVALID_STATE)


def test_vpn_tools_and_no_ops(world: World) -> None:
    assert ok(world, "user", "check_vpn_status") == "VPN is off."
    assert ok(world, "user", "disconnect_vpn")["changed"] is False
    assert ok(world, "user", "connect_vpn")["changed"] is True
    assert ok(world, "user", "connect_vpn")["changed"] is False
    assert ok(world, "user", "check_vpn_status") == (
        "VPN connected: server 192.168.1.1, protocol OpenVPN, performance excellent."
    )
    assert ok(world, "user", "disconnect_vpn")["changed"] is True
    state(world).device.vpn_enabled_setting = True
    assert "not connected" in ok(world, "user", "check_vpn_status")


def test_connect_vpn_uses_a_fresh_profile_after_break_vpn(world: World) -> None:
    """Δ6: `break_vpn` must not spoil later connections."""
    ok(world, "user", "break_vpn")
    assert state(world).device.vpn_details is not None
    assert state(world).device.vpn_details.server_performance == VpnPerformance.POOR
    ok(world, "user", "disconnect_vpn")
    ok(world, "user", "connect_vpn")
    assert state(world).device.vpn_details.server_performance == VpnPerformance.EXCELLENT


def test_app_tools(world: World) -> None:
    assert ok(world, "user", "check_installed_apps") == "Installed apps: messaging, browser"
    assert ok(world, "user", "check_app_status", app_name="messaging").endswith("sms, storage, phone.")
    assert ok(world, "user", "check_app_permissions", app_name="browser") == (
        "Permissions granted to browser: storage, network."
    )
    ok(world, "user", "grant_app_permission", app_name="browser", permission="SMS")
    assert state(world).device.app_statuses["browser"].permissions.sms
    assert (
        "already"
        in ok(world, "user", "grant_app_permission", app_name="browser", permission="sms")["message"]
    )
    ok(world, "user", "remove_app_permission", app_name="messaging", permission="Storage")
    assert ok(world, "user", "check_app_permissions", app_name="messaging").endswith("sms, phone.")
    for tool in ("check_app_status", "check_app_permissions"):
        fails(world, "user", tool, ErrorCode.NOT_FOUND, app_name="camera")
    for tool in ("grant_app_permission", "remove_app_permission"):
        fails(world, "user", tool, ErrorCode.NOT_FOUND, app_name="camera", permission="sms")
        fails(world, "user", tool, ErrorCode.INVALID_ARGUMENT, app_name="messaging", permission="camera")
    state(world).device.app_statuses.clear()
    assert ok(world, "user", "check_installed_apps") == "No apps are installed."


def test_can_send_mms_text(world: World) -> None:
    assert "can be sent" in ok(world, "user", "can_send_mms")
    ok(world, "user", "set_network_mode_preference", mode="2g_only")
    assert "cannot be sent" in ok(world, "user", "can_send_mms")


def test_payment_request_and_payment(world: World, dataset: TelecomData) -> None:
    subscriber, issued = dataset.subscriber, dataset.subscriber.issued_bill
    assert ok(world, "user", "check_payment_request") == "No pending payment request."
    fails(world, "user", "make_payment", ErrorCode.INVALID_STATE)
    ok(world, "agent", "send_payment_request", customer_id=subscriber.customer_id, bill_id=issued.bill_id)
    pending = f"Payment request pending: bill {issued.bill_id}, amount ${issued.total_due:.2f}."
    assert ok(world, "user", "check_payment_request") == pending
    content = ok(world, "user", "make_payment")
    assert (content["bill_id"], content["amount_paid"]) == (issued.bill_id, issued.total_due)
    assert "status_bar" not in content
    assert ok(world, "agent", "get_details_by_id", id=issued.bill_id)["status"] == "Paid"
    assert ok(world, "user", "check_payment_request") == "No pending payment request."
    fails(world, "user", "make_payment", ErrorCode.INVALID_STATE)


def test_payment_while_unbound_marks_only_the_stored_request(unbound: World, dataset: TelecomData) -> None:
    issued = dataset.subscriber.issued_bill
    surroundings = state(unbound).surroundings
    surroundings.payment_request = PaymentRequest(bill_id=issued.bill_id, amount_due=issued.total_due)
    assert issued.bill_id in ok(unbound, "user", "check_payment_request")
    ok(unbound, "user", "make_payment")
    assert surroundings.payment_request is not None and surroundings.payment_request.paid
    assert bill(unbound, issued.bill_id).status == "Issued"
    fails(unbound, "user", "make_payment", ErrorCode.INVALID_STATE)


def test_user_tools_cannot_be_called_from_the_agent_seat(world: World, dataset: TelecomData) -> None:
    result = world.call("agent", "toggle_data", {})
    assert result.error is not None and result.error.code is ErrorCode.WRONG_SEAT
    result = world.call("user", "refuel_data", {**dataset.subscriber.ids, "gb_amount": 1.0})
    assert result.error is not None and result.error.code is ErrorCode.WRONG_SEAT
