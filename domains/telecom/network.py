"""Network registration and the phone's derived connectivity facts (spec §2): search, mobile data, speed,
MMS and the status bar."""

from __future__ import annotations

from typing import Literal, NamedTuple

from tau2.domains.telecom.binding import line_active, roaming_allowed, usage_exceeded
from tau2.domains.telecom.phone import (
    ApnName,
    ConnectionStatus,
    DeviceState,
    NetworkModePreference,
    NetworkTechnology,
    SignalStrength,
    VpnPerformance,
)
from tau2.domains.telecom.state import TelecomState

SimStatus = Literal["active", "missing", "locked_pin", "locked_puk"]

_PREFERRED_TECHNOLOGY = {
    NetworkModePreference.FOUR_G_ONLY: NetworkTechnology.FOUR_G,
    NetworkModePreference.THREE_G_ONLY: NetworkTechnology.THREE_G,
    NetworkModePreference.TWO_G_ONLY: NetworkTechnology.TWO_G,
}
_SPEED_RANGE_MBPS = {
    NetworkTechnology.NONE: (0.0, 0.0),
    NetworkTechnology.TWO_G: (0.1, 0.4),
    NetworkTechnology.THREE_G: (1.0, 5.0),
    NetworkTechnology.FOUR_G: (10.0, 100.0),
    NetworkTechnology.FIVE_G: (50.0, 500.0),
}
_SIGNAL_FACTOR = {
    SignalStrength.NONE: 0.0,
    SignalStrength.POOR: 0.2,
    SignalStrength.FAIR: 0.5,
    SignalStrength.GOOD: 0.8,
    SignalStrength.EXCELLENT: 1.0,
}
_SPEED_LABELS = ((1.0, "Very Poor"), (5.0, "Poor"), (25.0, "Fair"), (100.0, "Good"))
NO_CONNECTION = "No Connection"
_SIGNAL_BARS = {
    SignalStrength.NONE: ("No Signal", 0),
    SignalStrength.POOR: ("Poor Signal", 1),
    SignalStrength.FAIR: ("Fair Signal", 2),
    SignalStrength.GOOD: ("Good Signal", 3),
    SignalStrength.EXCELLENT: ("Excellent Signal", 4),
}


def sim_status(device: DeviceState) -> SimStatus:
    """The observable SIM status: `missing` when no card is seated, else the card's lock state."""
    return "missing" if not device.sim_card_inserted else device.sim_card_status.value


def network_search(state: TelecomState) -> None:
    """Re-register on the network: recompute status, technology and signal from the current state (§2.1).

    Reboot and airplane-off pass through `searching` first; since the search always follows in the same
    operation, that transient status is never observable and is not written.
    """
    device = state.device
    technology, signal = _registration(state)
    blocked = (
        device.airplane_mode
        or device.active_apn_settings.apn_name == ApnName.BROKEN
        or state.service_blocked()
    )
    if signal == SignalStrength.NONE or blocked or not line_active(state):
        device.network_connection_status = ConnectionStatus.NO_SERVICE
        device.network_technology_connected = NetworkTechnology.NONE
        device.network_signal_strength = SignalStrength.NONE
    else:
        device.network_connection_status = ConnectionStatus.CONNECTED
        device.network_technology_connected = technology
        device.network_signal_strength = signal


def _registration(state: TelecomState) -> tuple[NetworkTechnology, SignalStrength]:
    """Technology chosen by the SIM and mode preference, and its signal here (none without a usable SIM)."""
    device = state.device
    if sim_status(device) != "active":
        return NetworkTechnology.NONE, SignalStrength.NONE
    offered = state.surroundings.signal_strength
    preference = device.network_mode_preference
    if preference == NetworkModePreference.FOUR_G_FIVE_G_PREFERRED:
        five_g = offered.get(NetworkTechnology.FIVE_G, SignalStrength.NONE) != SignalStrength.NONE
        technology = NetworkTechnology.FIVE_G if five_g else NetworkTechnology.FOUR_G
    else:
        technology = _PREFERRED_TECHNOLOGY[preference]
    return technology, offered.get(technology, SignalStrength.NONE)


def mobile_data_working(state: TelecomState) -> bool:
    """Whether mobile data works right now (§2.3); non-registration terms are evaluated live."""
    device = state.device
    if (
        device.airplane_mode
        or device.network_signal_strength == SignalStrength.NONE
        or device.network_connection_status == ConnectionStatus.NO_SERVICE
        or not device.data_enabled
    ):
        return False
    if state.surroundings.is_abroad and not (device.roaming_enabled and roaming_allowed(state)):
        return False
    return not usage_exceeded(state)


class SpeedTest(NamedTuple):
    """A speed test outcome: Mbps rounded to 2 decimals (None without connection) and its label."""

    speed: float | None
    label: str


def speed_test(state: TelecomState) -> SpeedTest:
    """Run the deterministic speed test of §2.4."""
    if not mobile_data_working(state):
        return SpeedTest(None, NO_CONNECTION)
    device = state.device
    base = 1.0
    details = device.vpn_details
    if device.vpn_connected and details is not None and details.server_performance == VpnPerformance.POOR:
        base = 0.1
    if device.data_saver_mode:
        base *= 0.2
    low, high = _SPEED_RANGE_MBPS[device.network_technology_connected]
    speed = round((low + high) / 2 * _SIGNAL_FACTOR[device.network_signal_strength] * base, 2)
    label = next((name for bound, name in _SPEED_LABELS if speed < bound), "Excellent")
    return SpeedTest(speed, label)


def can_send_mms(state: TelecomState) -> bool:
    """Whether an MMS can be sent right now (§2.5)."""
    device = state.device
    messaging = device.app_statuses.get("messaging")
    return (
        mobile_data_working(state)
        and device.network_technology_connected != NetworkTechnology.TWO_G
        and not (device.wifi_calling_enabled and device.wifi_calling_mms_over_wifi)
        and bool(device.active_apn_settings.mmsc_url)
        and messaging is not None
        and messaging.permissions.sms
        and messaging.permissions.storage
        and not state.mms_blocked()
    )


def status_bar(state: TelecomState) -> str:
    """The phone's status bar as one line of segments (§2.6)."""
    device = state.device
    segments: list[str] = []
    if device.airplane_mode:
        segments.append("Airplane Mode")
    else:
        label, bars = _SIGNAL_BARS[device.network_signal_strength]
        segments.append(f"{label} ({bars}/4 bars)")
        technology = device.network_technology_connected
        if technology != NetworkTechnology.NONE:
            segments.append(technology.value)
        if device.data_enabled and technology != NetworkTechnology.NONE:
            segments.append("Data Enabled")
            if device.data_saver_mode:
                segments.append("Data Saver")
        else:
            segments.append("Data Disabled")
    if device.wifi_enabled and device.wifi_connected:
        segments.append(f"Wi-Fi Connected ({device.wifi_ssid})" if device.wifi_ssid else "Wi-Fi Connected")
    if device.vpn_connected:
        segments.append("VPN Connected")
    segments.append(f"Battery {device.battery_level}%")
    return " | ".join(segments)
