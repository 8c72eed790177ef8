"""The 30 phone tools of the user seat (spec §5). Read tools return one text block; write tools return a
JSON object with a message and, except `make_payment`, the status bar after the change."""

from __future__ import annotations

from typing import Literal

from tau2.domains.telecom.binding import payment_request, settle_payment_request
from tau2.domains.telecom.network import can_send_mms as mms_possible
from tau2.domains.telecom.network import network_search, sim_status, speed_test, status_bar
from tau2.domains.telecom.phone import APNSettings, NetworkModePreference
from tau2.domains.telecom.phone_ops import (
    airplane_off,
    airplane_on,
    disconnect_wifi,
    require_app,
    set_permission,
)
from tau2.domains.telecom.phone_ops import connect_vpn as open_vpn
from tau2.domains.telecom.phone_ops import disconnect_vpn as close_vpn
from tau2.domains.telecom.state import TelecomState
from tau2.errors import ErrorCode, ToolError
from tau2.world import Side, ToolKind, ToolSet

USER_TOOLS = ToolSet(Side.USER)

NetworkModeValue = Literal["4g_5g_preferred", "4g_only", "3g_only", "2g_only"]

_SIM_TEXT = {
    "active": "SIM card: active.",
    "missing": "SIM card: no SIM card detected.",
    "locked_pin": "SIM card: locked, PIN code required.",
    "locked_puk": "SIM card: locked, PUK code required.",
}
_SPEED_ADVICE = {
    "Very Poor": "Too slow for almost anything, even loading a simple web page.",
    "Poor": "Fine for text messages and simple pages, too slow for images or video.",
    "Fair": "Good enough for browsing and music; video may buffer.",
    "Good": "Good for browsing and standard-quality video.",
    "Excellent": "Fast enough for anything, including HD video and large downloads.",
}


def _on(flag: bool) -> str:
    """A setting as the phone shows it: on or off."""
    return "on" if flag else "off"


def _written(state: TelecomState, message: str, **details: object) -> dict[str, object]:
    """Result of a successful write tool: its message, details, and the status bar after the change."""
    return {"message": message, **details, "status_bar": status_bar(state)}


def _flip(state: TelecomState, setting: str, label: str, search: bool) -> dict[str, object]:
    """Flip one boolean phone setting (re-registering on the network when `search`); the write result."""
    value = not getattr(state.device, setting)
    setattr(state.device, setting, value)
    if search:
        network_search(state)
    return _written(state, f"{label} is now {_on(value)}.", **{setting: value})


@USER_TOOLS.tool(ToolKind.READ)
def check_status_bar(state: TelecomState) -> str:
    """Look at the phone's status bar: signal, network type, mobile data, Wi-Fi, VPN and battery."""
    return f"Status bar: {status_bar(state)}"


@USER_TOOLS.tool(ToolKind.READ)
def check_network_status(state: TelecomState) -> str:
    """Open the phone's network settings overview: airplane mode, SIM, cellular connection, signal,
    network type, mobile data, data roaming and Wi-Fi."""
    device = state.device
    lines = [
        f"Airplane mode: {_on(device.airplane_mode)}",
        f"SIM card: {sim_status(device)}",
        f"Cellular connection: {device.network_connection_status.value}",
        f"Signal strength: {device.network_signal_strength.value}",
        f"Network type: {device.network_technology_connected.value}",
        f"Mobile data: {_on(device.data_enabled)}",
        f"Data roaming: {_on(device.roaming_enabled)}",
        f"Wi-Fi: {_on(device.wifi_enabled)}",
        f"Wi-Fi connected: {'yes' if device.wifi_connected else 'no'}",
    ]
    if device.wifi_connected:
        lines.append(f"Wi-Fi network: {device.wifi_ssid or 'unknown'}")
    return "\n".join(lines)


@USER_TOOLS.tool(ToolKind.READ)
def check_network_mode_preference(state: TelecomState) -> str:
    """See which network types the phone may use (the network mode preference)."""
    return f"Network mode preference: {state.device.network_mode_preference.value}"


@USER_TOOLS.tool(ToolKind.WRITE)
def set_network_mode_preference(state: TelecomState, mode: NetworkModeValue) -> dict[str, object]:
    """Choose which network types the phone may use; the phone then re-registers on the network.

    Args:
        mode: One of 4g_5g_preferred (best available), 4g_only, 3g_only or 2g_only.
    """
    state.device.network_mode_preference = NetworkModePreference(mode)
    network_search(state)
    return _written(state, f"Network mode preference set to {mode}.", network_mode_preference=mode)


@USER_TOOLS.tool(ToolKind.READ)
def run_speed_test(state: TelecomState) -> str:
    """Measure the mobile internet speed."""
    result = speed_test(state)
    if result.speed is None:
        return f"Speed test failed: {result.label}. Mobile data is not working."
    return f"Download speed: {result.speed:.2f} Mbps ({result.label}). {_SPEED_ADVICE[result.label]}"


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_airplane_mode(state: TelecomState) -> dict[str, object]:
    """Switch airplane mode on or off. Turning it on cuts all radios (cellular, Wi-Fi) and the VPN."""
    device = state.device
    if device.airplane_mode:
        airplane_off(device)
    else:
        airplane_on(device)
    network_search(state)
    return _written(
        state, f"Airplane mode is now {_on(device.airplane_mode)}.", airplane_mode=device.airplane_mode
    )


@USER_TOOLS.tool(ToolKind.READ)
def check_sim_status(state: TelecomState) -> str:
    """Check whether a SIM card is inserted and whether it is locked."""
    return _SIM_TEXT[sim_status(state.device)]


@USER_TOOLS.tool(ToolKind.WRITE)
def reseat_sim_card(state: TelecomState) -> dict[str, object]:
    """Take the SIM card out and put it back in properly; the phone then re-registers on the network."""
    state.device.sim_card_inserted = True
    network_search(state)
    return _written(state, "The SIM card has been re-inserted.", sim_status=sim_status(state.device))


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_data(state: TelecomState) -> dict[str, object]:
    """Switch mobile data on or off."""
    return _flip(state, "data_enabled", "Mobile data", search=True)


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_roaming(state: TelecomState) -> dict[str, object]:
    """Switch the phone's data roaming setting on or off (needed for mobile data abroad)."""
    return _flip(state, "roaming_enabled", "Data roaming", search=True)


@USER_TOOLS.tool(ToolKind.READ)
def check_data_restriction_status(state: TelecomState) -> str:
    """Check whether data saver mode (which restricts data use and slows connections) is on."""
    return f"Data saver mode: {_on(state.device.data_saver_mode)}"


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_data_saver_mode(state: TelecomState) -> dict[str, object]:
    """Switch data saver mode on or off."""
    return _flip(state, "data_saver_mode", "Data saver mode", search=False)


@USER_TOOLS.tool(ToolKind.READ)
def check_apn_settings(state: TelecomState) -> str:
    """Look at the access point (APN) settings used for mobile data and picture messages."""
    apn = state.device.active_apn_settings
    return (
        f"APN name: {apn.apn_name.value}\nMMSC URL: {apn.mmsc_url or 'not set'}\n"
        "These are technical carrier settings; change them only when instructed."
    )


@USER_TOOLS.tool(ToolKind.WRITE)
def set_apn_settings(state: TelecomState, apn_settings: APNSettings) -> dict[str, object]:
    """Replace the APN settings with the values given; omitted fields take the carrier defaults. The
    phone then re-registers on the network.

    Args:
        apn_settings: The new APN record (apn_name is "internet" or "broken"; MMS fields optional).
    """
    state.device.active_apn_settings = apn_settings
    network_search(state)
    name = apn_settings.apn_name.value
    return _written(state, f"APN settings saved (APN name {name}).", apn_name=name)


@USER_TOOLS.tool(ToolKind.WRITE)
def reset_apn_settings(state: TelecomState) -> dict[str, object]:
    """Restore the carrier's default APN settings. The reset takes effect at the next restart."""
    state.device.active_apn_settings.reset_at_reboot = True
    network_search(state)
    return _written(state, "APN settings will reset to the defaults when the phone restarts.")


@USER_TOOLS.tool(ToolKind.READ)
def check_wifi_status(state: TelecomState) -> str:
    """Check whether Wi-Fi is on and which network it is connected to."""
    device = state.device
    if not device.wifi_enabled:
        return "Wi-Fi is off."
    if not device.wifi_connected:
        return "Wi-Fi is on but not connected to any network."
    signal = device.wifi_signal_strength.value
    return f"Wi-Fi is connected to {device.wifi_ssid or 'a network'} (signal: {signal})."


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_wifi(state: TelecomState) -> dict[str, object]:
    """Switch the Wi-Fi radio on or off (not possible in airplane mode)."""
    device = state.device
    if device.airplane_mode:
        raise ToolError(ErrorCode.INVALID_STATE, "Wi-Fi cannot be changed while airplane mode is on.")
    device.wifi_enabled = not device.wifi_enabled
    if not device.wifi_enabled:
        disconnect_wifi(device)
    return _written(state, f"Wi-Fi is now {_on(device.wifi_enabled)}.", wifi_enabled=device.wifi_enabled)


@USER_TOOLS.tool(ToolKind.READ)
def check_wifi_calling_status(state: TelecomState) -> str:
    """Check whether Wi-Fi calling is on."""
    return f"Wi-Fi calling: {_on(state.device.wifi_calling_enabled)}"


@USER_TOOLS.tool(ToolKind.WRITE)
def toggle_wifi_calling(state: TelecomState) -> dict[str, object]:
    """Switch Wi-Fi calling on or off."""
    return _flip(state, "wifi_calling_enabled", "Wi-Fi calling", search=False)


@USER_TOOLS.tool(ToolKind.READ)
def check_vpn_status(state: TelecomState) -> str:
    """Check whether a VPN is connected, and its server, protocol and performance."""
    device = state.device
    details = device.vpn_details
    if device.vpn_connected and details is not None:
        return (
            f"VPN connected: server {details.server_address or 'unknown'}, "
            f"protocol {details.protocol or 'unknown'}, performance {details.server_performance.value}."
        )
    if device.vpn_enabled_setting:
        return "A VPN is set up in settings but not connected."
    return "VPN is off."


@USER_TOOLS.tool(ToolKind.WRITE)
def connect_vpn(state: TelecomState) -> dict[str, object]:
    """Connect to the VPN."""
    changed = open_vpn(state.device)
    return _written(state, "VPN connected." if changed else "The VPN is already connected.", changed=changed)


@USER_TOOLS.tool(ToolKind.WRITE)
def disconnect_vpn(state: TelecomState) -> dict[str, object]:
    """Disconnect from the VPN."""
    changed = close_vpn(state.device)
    return _written(state, "VPN disconnected." if changed else "No VPN is connected.", changed=changed)


@USER_TOOLS.tool(ToolKind.READ)
def check_installed_apps(state: TelecomState) -> str:
    """List the apps installed on the phone."""
    names = list(state.device.app_statuses)
    return f"Installed apps: {', '.join(names)}" if names else "No apps are installed."


def _granted(state: TelecomState, app_name: str) -> str:
    """The permissions granted to an installed app, as text."""
    permissions = require_app(state.device, app_name).permissions
    granted = [name for name, value in permissions.model_dump().items() if value]
    return ", ".join(granted) or "none"


@USER_TOOLS.tool(ToolKind.READ)
def check_app_status(state: TelecomState, app_name: str) -> str:
    """Look at an installed app and the permissions it has.

    Args:
        app_name: The app's name, e.g. messaging or browser.
    """
    return f"App {app_name} is installed. Granted permissions: {_granted(state, app_name)}."


@USER_TOOLS.tool(ToolKind.READ)
def check_app_permissions(state: TelecomState, app_name: str) -> str:
    """List the permissions granted to an installed app.

    Args:
        app_name: The app's name, e.g. messaging or browser.
    """
    return f"Permissions granted to {app_name}: {_granted(state, app_name)}."


@USER_TOOLS.tool(ToolKind.WRITE)
def grant_app_permission(state: TelecomState, app_name: str, permission: str) -> dict[str, object]:
    """Give an installed app a permission.

    Args:
        app_name: The app's name, e.g. messaging.
        permission: One of sms, storage, phone or network.
    """
    changed = set_permission(state.device, app_name, permission, True)
    key = permission.lower()
    message = (
        f"Granted {key} permission to {app_name}." if changed else f"{app_name} already had {key} permission."
    )
    return _written(state, message)


@USER_TOOLS.tool(ToolKind.READ)
def can_send_mms(state: TelecomState) -> str:
    """Check whether the messaging app can send picture and group messages (MMS) right now."""
    if mms_possible(state):
        return "MMS: picture and group messages can be sent."
    return "MMS: picture and group messages cannot be sent right now."


@USER_TOOLS.tool(ToolKind.WRITE)
def reboot_device(state: TelecomState) -> dict[str, object]:
    """Restart the phone. Pending APN resets are applied and the phone re-registers on the network."""
    device = state.device
    reset = device.active_apn_settings.reset_at_reboot
    if reset:
        device.active_apn_settings = APNSettings()
    network_search(state)
    message = "The phone restarted" + (" and the APN settings were reset to the defaults." if reset else ".")
    return _written(state, message, apn_reset=reset)


@USER_TOOLS.tool(ToolKind.READ)
def check_payment_request(state: TelecomState) -> str:
    """Check whether the carrier has sent a request to pay a bill."""
    request = payment_request(state)
    if request is None or request.paid:
        return "No pending payment request."
    return f"Payment request pending: bill {request.bill_id}, amount ${request.amount_due:.2f}."


@USER_TOOLS.tool(ToolKind.WRITE)
def make_payment(state: TelecomState) -> dict[str, object]:
    """Pay the bill in the pending payment request."""
    request = settle_payment_request(state)
    return {
        "message": f"Paid ${request.amount_due:.2f} for bill {request.bill_id}.",
        "bill_id": request.bill_id,
        "amount_paid": request.amount_due,
    }
