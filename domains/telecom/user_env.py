"""User-side env functions: phone fault injection for task set-up and phone assertions (spec §6.2).

The `turn_*` functions set a target state rather than flip it (Δ7).
"""

from __future__ import annotations

from typing import Literal

from tau2.domains.telecom.binding import bind, usage_exceeded
from tau2.domains.telecom.network import can_send_mms, mobile_data_working, network_search, speed_test
from tau2.domains.telecom.phone import (
    ApnName,
    NetworkTechnology,
    SignalStrength,
    SimCardStatus,
    VpnPerformance,
)
from tau2.domains.telecom.phone_ops import (
    airplane_off,
    airplane_on,
    connect_vpn,
    require_app,
    set_permission,
)
from tau2.domains.telecom.state import TelecomState
from tau2.domains.telecom.user_tools import NetworkModeValue
from tau2.world import Observation, Side, ToolSet

USER_ENV = ToolSet(Side.USER)

ConnectionStatusValue = Literal["connected", "searching", "no_service", "emergency_only"]
TechnologyValue = Literal["2G", "3G", "4G", "5G"]
SignalStrengthValue = Literal["none", "poor", "fair", "good", "excellent"]
ApnSettingValue = Literal["apn_name", "reset_at_reboot", "mms_apn", "mmsc_url", "mms_proxy", "mms_port"]
PermissionValue = Literal["sms", "storage", "phone", "network"]


@USER_ENV.env_function()
def set_user_info(state: TelecomState, name: str, phone_number: str) -> None:
    """Name the user and bind the phone to the CRM line with this number.

    Args:
        name: The user's name.
        phone_number: The number of an existing CRM line.
    """
    bind(state, name, phone_number)


@USER_ENV.env_function()
def set_user_location(state: TelecomState, abroad: bool) -> None:
    """Place the user at home or abroad.

    Args:
        abroad: Whether the user is abroad.
    """
    state.surroundings.is_abroad = abroad


@USER_ENV.env_function()
def set_signal_strength(
    state: TelecomState, technology: TechnologyValue, strength: SignalStrengthValue
) -> None:
    """Set the signal one network technology offers where the user is (none: no coverage), then search.

    Args:
        technology: The network technology: 2G, 3G, 4G or 5G.
        strength: The signal it offers here: none, poor, fair, good or excellent.
    """
    state.surroundings.signal_strength[NetworkTechnology(technology)] = SignalStrength(strength)
    network_search(state)


@USER_ENV.env_function()
def simulate_network_search(state: TelecomState) -> None:
    """Make the phone re-register on the network."""
    network_search(state)


@USER_ENV.env_function()
def turn_airplane_mode_on(state: TelecomState) -> None:
    """Turn airplane mode on (dropping Wi-Fi and VPN), then search."""
    airplane_on(state.device)
    network_search(state)


@USER_ENV.env_function()
def turn_airplane_mode_off(state: TelecomState) -> None:
    """Turn airplane mode off if it is on, then search."""
    if state.device.airplane_mode:
        airplane_off(state.device)
    network_search(state)


@USER_ENV.env_function()
def unseat_sim_card(state: TelecomState) -> None:
    """Loosen the SIM card so the phone no longer detects it, then search."""
    state.device.sim_card_inserted = False
    network_search(state)


@USER_ENV.env_function()
def lock_sim_card(state: TelecomState, mode: Literal["pin", "puk"]) -> None:
    """Lock the SIM card so it needs a PIN or PUK code, then search.

    Args:
        mode: "pin" or "puk".
    """
    state.device.sim_card_status = SimCardStatus.LOCKED_PIN if mode == "pin" else SimCardStatus.LOCKED_PUK
    network_search(state)


@USER_ENV.env_function()
def turn_data_on(state: TelecomState) -> None:
    """Switch mobile data on, then search."""
    state.device.data_enabled = True
    network_search(state)


@USER_ENV.env_function()
def turn_data_off(state: TelecomState) -> None:
    """Switch mobile data off, then search."""
    state.device.data_enabled = False
    network_search(state)


@USER_ENV.env_function()
def turn_roaming_on(state: TelecomState) -> None:
    """Switch the phone's data roaming on, then search."""
    state.device.roaming_enabled = True
    network_search(state)


@USER_ENV.env_function()
def turn_roaming_off(state: TelecomState) -> None:
    """Switch the phone's data roaming off, then search."""
    state.device.roaming_enabled = False
    network_search(state)


@USER_ENV.env_function()
def turn_data_saver_mode_on(state: TelecomState) -> None:
    """Switch data saver mode on."""
    state.device.data_saver_mode = True


@USER_ENV.env_function()
def turn_data_saver_mode_off(state: TelecomState) -> None:
    """Switch data saver mode off."""
    state.device.data_saver_mode = False


@USER_ENV.env_function()
def break_apn_settings(state: TelecomState) -> None:
    """Misconfigure the data APN, then search (no service)."""
    state.device.active_apn_settings.apn_name = ApnName.BROKEN
    network_search(state)


@USER_ENV.env_function()
def break_apn_mms_setting(state: TelecomState) -> None:
    """Clear the MMSC URL so picture messages fail."""
    state.device.active_apn_settings.mmsc_url = None


@USER_ENV.env_function()
def set_wifi_calling(state: TelecomState, enabled: bool, mms_over_wifi: bool | None = None) -> None:
    """Set Wi-Fi calling and, when given, whether MMS go over Wi-Fi.

    Args:
        enabled: Whether Wi-Fi calling is on.
        mms_over_wifi: Whether MMS are sent over Wi-Fi; unchanged when omitted.
    """
    state.device.wifi_calling_enabled = enabled
    if mms_over_wifi is not None:
        state.device.wifi_calling_mms_over_wifi = mms_over_wifi


@USER_ENV.env_function()
def break_vpn(state: TelecomState) -> None:
    """Connect the VPN (if needed) and make its server perform poorly."""
    device = state.device
    connect_vpn(device)
    assert device.vpn_details is not None, "a connected VPN always has details"
    device.vpn_details.server_performance = VpnPerformance.POOR


@USER_ENV.env_function()
def remove_app_permission(state: TelecomState, app_name: str, permission: str) -> None:
    """Revoke one permission of an installed app.

    Args:
        app_name: The app's name.
        permission: One of sms, storage, phone or network.
    """
    set_permission(state.device, app_name, permission, False)


@USER_ENV.assertion()
def assert_airplane_mode_status(state: TelecomState, expected_status: bool) -> Observation:
    """Whether airplane mode equals `expected_status`; observes the airplane mode.

    Args:
        expected_status: The expected airplane mode.
    """
    observed = state.device.airplane_mode
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_service_status(state: TelecomState, expected_status: ConnectionStatusValue) -> Observation:
    """Whether the stored cellular connection status equals `expected_status`; observes the status.

    Args:
        expected_status: The expected connection status.
    """
    observed = state.device.network_connection_status
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_mobile_data_status(state: TelecomState, expected_status: bool) -> Observation:
    """Whether mobile data working equals `expected_status`; observes whether mobile data works.

    Args:
        expected_status: Whether mobile data should work.
    """
    observed = mobile_data_working(state)
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_mobile_roaming_status(state: TelecomState, expected_status: bool) -> Observation:
    """Whether the phone's data roaming setting equals `expected_status`; observes the setting.

    Args:
        expected_status: The expected setting.
    """
    observed = state.device.roaming_enabled
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_mobile_data_saver_mode_status(state: TelecomState, expected_status: bool) -> Observation:
    """Whether data saver mode equals `expected_status`; observes the setting.

    Args:
        expected_status: The expected setting.
    """
    observed = state.device.data_saver_mode
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_internet_speed(
    state: TelecomState, expected_speed: float, expected_desc: str | None = None
) -> Observation:
    """Whether the speed test reaches `expected_speed` Mbps (no connection counts as 0) and, when given,
    its label equals `expected_desc` ignoring case. Observes the speed (null: no connection) and the label.

    Args:
        expected_speed: The minimum speed in Mbps.
        expected_desc: The expected label, e.g. "excellent" or "No Connection".
    """
    result = speed_test(state)
    fast_enough = (result.speed or 0.0) >= expected_speed
    holds = fast_enough and (expected_desc is None or result.label.casefold() == expected_desc.casefold())
    return Observation(holds=holds, observed={"speed": result.speed, "desc": result.label})


@USER_ENV.assertion()
def assert_internet_not_excellent(state: TelecomState) -> Observation:
    """Whether the speed test label is anything but excellent (true without connection); observes the
    label."""
    label = speed_test(state).label
    return Observation(holds=label.casefold() != "excellent", observed=label)


@USER_ENV.assertion()
def assert_can_send_mms(state: TelecomState, expected_status: bool) -> Observation:
    """Whether being able to send MMS equals `expected_status`; observes whether an MMS can be sent.

    Args:
        expected_status: Whether MMS should be possible.
    """
    observed = can_send_mms(state)
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_mobile_data_usage_exceeded(state: TelecomState, expected_status: bool) -> Observation:
    """Whether the line's data usage being exceeded equals `expected_status`; observes whether it is.

    Args:
        expected_status: Whether usage should be exceeded.
    """
    observed = usage_exceeded(state)
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_network_mode_preference(state: TelecomState, expected_mode: NetworkModeValue) -> Observation:
    """Whether the phone's network mode preference equals `expected_mode`; observes the preference.

    Args:
        expected_mode: The expected preference, e.g. 4g_5g_preferred.
    """
    observed = state.device.network_mode_preference
    return Observation(holds=observed == expected_mode, observed=observed)


@USER_ENV.assertion()
def assert_vpn_connected(state: TelecomState, expected_status: bool) -> Observation:
    """Whether a VPN being connected equals `expected_status`; observes whether one is.

    Args:
        expected_status: Whether a VPN should be connected.
    """
    observed = state.device.vpn_connected
    return Observation(holds=observed == expected_status, observed=observed)


@USER_ENV.assertion()
def assert_apn_setting(
    state: TelecomState, setting: ApnSettingValue, expected_value: str | int | bool | None = None
) -> Observation:
    """Whether one field of the active APN settings equals `expected_value` (omitted or null: not set);
    observes the field's value.

    Args:
        setting: The APN field: apn_name, reset_at_reboot, mms_apn, mmsc_url, mms_proxy or mms_port.
        expected_value: The value it should have; omitted, the field should not be set.
    """
    value = getattr(state.device.active_apn_settings, setting)
    holds = bool(value == expected_value) and isinstance(value, bool) == isinstance(expected_value, bool)
    return Observation(holds=holds, observed=value)


@USER_ENV.assertion()
def assert_app_permission(
    state: TelecomState, app_name: str, permission: PermissionValue, expected_status: bool
) -> Observation:
    """Whether an installed app holding `permission` equals `expected_status`; observes whether it does.

    Args:
        app_name: The app's name, e.g. messaging.
        permission: One of sms, storage, phone or network.
        expected_status: Whether the app should hold the permission.
    """
    observed = bool(getattr(require_app(state.device, app_name).permissions, permission))
    return Observation(holds=observed == expected_status, observed=observed)
