"""Network registration and derived connectivity (spec §2): search, data, speed table, MMS, status bar."""

from __future__ import annotations

import pytest

from tau2.domains.telecom import (
    ApnName,
    ConnectionStatus,
    NetworkModePreference,
    NetworkTechnology,
    SignalStrength,
    SimCardStatus,
    TelecomState,
    VpnDetails,
    VpnPerformance,
)
from tau2.domains.telecom.network import (
    can_send_mms,
    mobile_data_working,
    network_search,
    speed_test,
    status_bar,
)

T = NetworkTechnology
S = SignalStrength
SPEEDS = {
    T.TWO_G: (0.05, 0.12, 0.2, 0.25),
    T.THREE_G: (0.6, 1.5, 2.4, 3.0),
    T.FOUR_G: (11.0, 27.5, 44.0, 55.0),
    T.FIVE_G: (55.0, 137.5, 220.0, 275.0),
}
DATA_SAVER = {T.TWO_G: (0.04, 0.05), T.THREE_G: (0.48, 0.6), T.FOUR_G: (8.8, 11.0), T.FIVE_G: (44.0, 55.0)}
POOR_VPN = {T.TWO_G: (0.02, 0.03), T.THREE_G: (0.24, 0.3), T.FOUR_G: (4.4, 5.5), T.FIVE_G: (22.0, 27.5)}


def registered(technology: NetworkTechnology, signal: SignalStrength) -> TelecomState:
    """A default (unbound) state registered on `technology` with `signal`."""
    state = TelecomState()
    state.device.network_technology_connected = technology
    state.device.network_signal_strength = signal
    return state


def label_for(speed: float) -> str:
    thresholds = ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good"))
    return next((label for bound, label in thresholds if speed < bound), "Excellent")


@pytest.mark.parametrize("technology", list(SPEEDS))
@pytest.mark.parametrize("index", range(4))
def test_speed_table(technology: NetworkTechnology, index: int) -> None:
    signal = (S.POOR, S.FAIR, S.GOOD, S.EXCELLENT)[index]
    expected = SPEEDS[technology][index]
    assert speed_test(registered(technology, signal)) == (expected, label_for(expected))


@pytest.mark.parametrize("technology", list(SPEEDS))
@pytest.mark.parametrize("index", range(2))
def test_speed_with_data_saver_and_with_poor_vpn(technology: NetworkTechnology, index: int) -> None:
    signal = (S.GOOD, S.EXCELLENT)[index]
    saver = registered(technology, signal)
    saver.device.data_saver_mode = True
    assert speed_test(saver).speed == DATA_SAVER[technology][index]
    vpn = registered(technology, signal)
    vpn.device.vpn_connected = True
    vpn.device.vpn_details = VpnDetails(server_performance=VpnPerformance.POOR)
    assert speed_test(vpn).speed == POOR_VPN[technology][index]


def test_a_fair_vpn_does_not_slow_data() -> None:
    state = registered(T.FIVE_G, S.GOOD)
    state.device.vpn_connected = True
    state.device.vpn_details = VpnDetails(server_performance=VpnPerformance.FAIR)
    assert speed_test(state) == (220.0, "Excellent")


@pytest.mark.parametrize(
    "breakage",
    [
        {"airplane_mode": True},
        {"data_enabled": False},
        {"network_signal_strength": S.NONE},
        {"network_connection_status": ConnectionStatus.NO_SERVICE},
    ],
)
def test_no_connection_without_mobile_data(breakage: dict[str, object]) -> None:
    state = registered(T.FIVE_G, S.GOOD)
    for field, value in breakage.items():
        setattr(state.device, field, value)
    assert not mobile_data_working(state)
    assert speed_test(state) == (None, "No Connection")


def test_abroad_needs_phone_roaming_and_carrier_permission() -> None:
    state = registered(T.FIVE_G, S.GOOD)
    state.surroundings.is_abroad = True
    assert not mobile_data_working(state)
    state.device.roaming_enabled = True
    assert not mobile_data_working(state)
    state.surroundings.roaming_allowed = True
    assert mobile_data_working(state)


def test_exceeded_usage_blocks_data_while_unbound_from_the_stored_flag() -> None:
    state = registered(T.FIVE_G, S.GOOD)
    state.surroundings.mobile_data_usage_exceeded = True
    assert not mobile_data_working(state)


@pytest.mark.parametrize(
    ("preference", "technology", "signal"),
    [
        (NetworkModePreference.FOUR_G_FIVE_G_PREFERRED, T.FIVE_G, S.EXCELLENT),
        (NetworkModePreference.FOUR_G_ONLY, T.FOUR_G, S.GOOD),
        (NetworkModePreference.THREE_G_ONLY, T.THREE_G, S.FAIR),
        (NetworkModePreference.TWO_G_ONLY, T.TWO_G, S.POOR),
    ],
)
def test_search_follows_the_mode_preference(
    preference: NetworkModePreference, technology: NetworkTechnology, signal: SignalStrength
) -> None:
    state = TelecomState()
    state.device.network_mode_preference = preference
    network_search(state)
    device = state.device
    assert (device.network_connection_status, device.network_technology_connected) == (
        ConnectionStatus.CONNECTED,
        technology,
    )
    assert device.network_signal_strength == signal


def test_preferred_mode_falls_back_to_4g_without_5g_coverage() -> None:
    state = TelecomState()
    state.surroundings.signal_strength = {T.FIVE_G: S.NONE, T.FOUR_G: S.FAIR}
    network_search(state)
    assert (state.device.network_technology_connected, state.device.network_signal_strength) == (
        T.FOUR_G,
        S.FAIR,
    )


def test_selected_technology_without_signal_gives_no_service() -> None:
    """Δ8: no signal on the chosen technology means no service, not `connected` with no signal."""
    state = TelecomState()
    state.device.network_mode_preference = NetworkModePreference.FOUR_G_ONLY
    state.surroundings.signal_strength = {T.FIVE_G: S.GOOD}
    network_search(state)
    assert state.device.network_connection_status == ConnectionStatus.NO_SERVICE
    assert state.device.network_technology_connected == T.NONE


@pytest.mark.parametrize(
    "fault",
    [
        lambda s: setattr(s.device, "sim_card_inserted", False),
        lambda s: setattr(s.device, "sim_card_status", SimCardStatus.LOCKED_PIN),
        lambda s: setattr(s.device, "sim_card_status", SimCardStatus.LOCKED_PUK),
        lambda s: setattr(s.device, "airplane_mode", True),
        lambda s: setattr(s.device.active_apn_settings, "apn_name", ApnName.BROKEN),
        lambda s: setattr(s.surroundings, "line_active", False),
    ],
)
def test_search_gives_no_service_for_each_blocking_fault(fault: object) -> None:
    state = TelecomState()
    assert callable(fault)
    fault(state)
    network_search(state)
    device = state.device
    assert (
        device.network_connection_status,
        device.network_technology_connected,
        device.network_signal_strength,
    ) == (
        ConnectionStatus.NO_SERVICE,
        T.NONE,
        S.NONE,
    )


def test_search_ignores_everything_else() -> None:
    state = TelecomState()
    device = state.device
    device.data_enabled = False
    device.data_saver_mode = True
    device.wifi_calling_enabled = True
    device.active_apn_settings.mmsc_url = None
    state.surroundings.is_abroad = True
    state.surroundings.mobile_data_usage_exceeded = True
    network_search(state)
    assert device.network_connection_status == ConnectionStatus.CONNECTED


def test_mms_conditions() -> None:
    state = registered(T.FIVE_G, S.GOOD)
    assert can_send_mms(state)
    state.device.data_saver_mode = True
    state.device.vpn_connected = True
    state.device.vpn_details = VpnDetails(server_performance=VpnPerformance.POOR)
    assert can_send_mms(state), "data saver and VPN do not block MMS"
    for breaking in (
        lambda s: setattr(s.device, "network_technology_connected", T.TWO_G),
        lambda s: (
            setattr(s.device, "wifi_calling_enabled", True),
            setattr(s.device, "wifi_calling_mms_over_wifi", True),
        ),
        lambda s: setattr(s.device.active_apn_settings, "mmsc_url", ""),
        lambda s: setattr(s.device.active_apn_settings, "mmsc_url", None),
        lambda s: setattr(s.device.app_statuses["messaging"].permissions, "sms", False),
        lambda s: setattr(s.device.app_statuses["messaging"].permissions, "storage", False),
        lambda s: s.device.app_statuses.pop("messaging"),
        lambda s: setattr(s.device, "data_enabled", False),
    ):
        broken = state.model_copy(deep=True)
        breaking(broken)
        assert not can_send_mms(broken)
    wifi_calling_only = state.model_copy(deep=True)
    wifi_calling_only.device.wifi_calling_enabled = True
    assert can_send_mms(wifi_calling_only)


def test_status_bar_segments() -> None:
    state = TelecomState()
    device = state.device
    assert status_bar(state) == "Good Signal (3/4 bars) | 5G | Data Enabled | Battery 80%"
    device.data_saver_mode = True
    device.vpn_connected = True
    device.vpn_details = VpnDetails()
    device.wifi_enabled = device.wifi_connected = True
    device.wifi_ssid = "HomeNet"
    assert status_bar(state) == (
        "Good Signal (3/4 bars) | 5G | Data Enabled | Data Saver | Wi-Fi Connected (HomeNet) | VPN Connected"
        " | Battery 80%"
    )
    device.data_enabled = False
    assert status_bar(state).startswith("Good Signal (3/4 bars) | 5G | Data Disabled | Wi-Fi")


def test_status_bar_without_service_and_in_airplane_mode() -> None:
    state = TelecomState()
    state.device.sim_card_inserted = False
    network_search(state)
    assert status_bar(state) == "No Signal (0/4 bars) | Data Disabled | Battery 80%"
    state.device.airplane_mode = True
    state.device.battery_level = 7
    assert status_bar(state) == "Airplane Mode | Battery 7%"
