"""Phone-side state transitions shared by user tools and user env functions (spec §5, §6.2)."""

from __future__ import annotations

from tau2.domains.telecom.phone import PERMISSIONS, AppStatus, DeviceState, SignalStrength, default_vpn
from tau2.errors import ErrorCode, ToolError


def disconnect_wifi(device: DeviceState) -> None:
    """Drop the Wi-Fi connection; the radio setting is kept."""
    device.wifi_connected = False
    device.wifi_ssid = None
    device.wifi_signal_strength = SignalStrength.NONE


def airplane_on(device: DeviceState) -> None:
    """Turn airplane mode on: Wi-Fi and VPN are disconnected (the caller then searches)."""
    device.airplane_mode = True
    disconnect_wifi(device)
    disconnect_vpn(device)


def airplane_off(device: DeviceState) -> None:
    """Turn airplane mode off: the Wi-Fi radio, if on, starts disconnected (the caller then searches)."""
    device.airplane_mode = False
    if device.wifi_enabled:
        disconnect_wifi(device)


def connect_vpn(device: DeviceState) -> bool:
    """Connect the VPN with a fresh default profile; returns whether anything changed."""
    if device.vpn_connected:
        return False
    device.vpn_connected = True
    device.vpn_details = default_vpn()
    return True


def disconnect_vpn(device: DeviceState) -> bool:
    """Disconnect the VPN; returns whether anything changed."""
    if not device.vpn_connected:
        return False
    device.vpn_connected = False
    device.vpn_details = None
    return True


def require_app(device: DeviceState, app_name: str) -> AppStatus:
    """The installed app called `app_name`, else `not_found`."""
    app = device.app_statuses.get(app_name)
    if app is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"No app named {app_name!r} is installed.")
    return app


def set_permission(device: DeviceState, app_name: str, permission: str, granted: bool) -> bool:
    """Grant or revoke one permission of an app (name lower-cased); returns whether anything changed."""
    app = require_app(device, app_name)
    key = permission.lower()
    if key not in PERMISSIONS:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"Unknown permission {permission!r}: use one of {', '.join(PERMISSIONS)}.",
        )
    changed = bool(getattr(app.permissions, key)) != granted
    setattr(app.permissions, key, granted)
    return changed
