"""The customer's phone and surroundings (user side, spec §1.2)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator

from tau2.domains.telecom.record import Record


class SimCardStatus(StrEnum):
    """Lock state of the SIM card itself (whether it is seated is a separate fact, Δ3)."""

    ACTIVE = "active"
    LOCKED_PIN = "locked_pin"
    LOCKED_PUK = "locked_puk"


class SignalStrength(StrEnum):
    """Signal levels of cellular networks and Wi-Fi."""

    NONE = "none"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class NetworkTechnology(StrEnum):
    """Radio technology of the cellular registration."""

    NONE = "none"
    TWO_G = "2G"
    THREE_G = "3G"
    FOUR_G = "4G"
    FIVE_G = "5G"


class ConnectionStatus(StrEnum):
    """Registration status of the phone on the cellular network."""

    CONNECTED = "connected"
    SEARCHING = "searching"
    NO_SERVICE = "no_service"
    EMERGENCY_ONLY = "emergency_only"


class NetworkModePreference(StrEnum):
    """Which technologies the phone may register on."""

    FOUR_G_FIVE_G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class ApnName(StrEnum):
    """The data APN profile: the carrier's `internet`, or a misconfigured one."""

    INTERNET = "internet"
    BROKEN = "broken"


class VpnPerformance(StrEnum):
    """Observed performance of the VPN server."""

    UNKNOWN = "unknown"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class APNSettings(Record):
    """Access point settings for mobile data and MMS."""

    apn_name: ApnName = ApnName.INTERNET
    reset_at_reboot: bool = False
    mms_apn: str | None = "mms"
    mmsc_url: str | None = "http://mms.carrier.com/mms/wapenc"
    mms_proxy: str | None = None
    mms_port: int | None = None


class VpnDetails(Record):
    """The VPN session in use."""

    server_address: str | None = None
    protocol: str | None = None
    server_performance: VpnPerformance = VpnPerformance.UNKNOWN


def default_vpn() -> VpnDetails:
    """The VPN profile `connect_vpn` uses: a fresh object on every connect (Δ6)."""
    return VpnDetails(
        server_address="192.168.1.1", protocol="OpenVPN", server_performance=VpnPerformance.EXCELLENT
    )


class AppPermissions(Record):
    """The four tracked app permissions."""

    sms: bool = False
    storage: bool = False
    phone: bool = False
    network: bool = False


PERMISSIONS: tuple[str, ...] = tuple(AppPermissions.model_fields)
"""Names of the tracked permissions, in declaration order."""


class AppStatus(Record):
    """An installed app and the permissions granted to it."""

    app_name: str
    permissions: AppPermissions = Field(default_factory=AppPermissions)


def default_apps() -> dict[str, AppStatus]:
    """The apps installed on a fresh phone: messaging and browser."""
    return {
        "messaging": AppStatus(
            app_name="messaging", permissions=AppPermissions(sms=True, storage=True, phone=True)
        ),
        "browser": AppStatus(app_name="browser", permissions=AppPermissions(storage=True, network=True)),
    }


class DeviceState(Record):
    """The phone's settings and its stored network registration."""

    sim_card_status: SimCardStatus = SimCardStatus.ACTIVE
    sim_card_inserted: bool = True
    airplane_mode: bool = False
    network_signal_strength: SignalStrength = SignalStrength.GOOD
    network_technology_connected: NetworkTechnology = NetworkTechnology.FIVE_G
    network_connection_status: ConnectionStatus = ConnectionStatus.CONNECTED
    battery_level: int = Field(default=80, ge=0, le=100)
    data_enabled: bool = True
    roaming_enabled: bool = False
    network_mode_preference: NetworkModePreference = NetworkModePreference.FOUR_G_FIVE_G_PREFERRED
    active_apn_settings: APNSettings = Field(default_factory=APNSettings)
    wifi_enabled: bool = False
    wifi_connected: bool = False
    wifi_ssid: str | None = None
    wifi_signal_strength: SignalStrength = SignalStrength.NONE
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = False
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: VpnDetails | None = None
    app_statuses: dict[str, AppStatus] = Field(default_factory=default_apps)


class PaymentRequest(Record):
    """A bill the carrier asked the customer to pay from the phone."""

    bill_id: str
    amount_due: float
    paid: bool = False


TECHNOLOGIES: tuple[NetworkTechnology, ...] = (
    NetworkTechnology.TWO_G,
    NetworkTechnology.THREE_G,
    NetworkTechnology.FOUR_G,
    NetworkTechnology.FIVE_G,
)
"""The technologies a location can offer, in the canonical order of `signal_strength`."""


def default_signal_map() -> dict[NetworkTechnology, SignalStrength]:
    """What each technology offers at a default location."""
    levels = (SignalStrength.POOR, SignalStrength.FAIR, SignalStrength.GOOD, SignalStrength.EXCELLENT)
    return dict(zip(TECHNOLOGIES, levels, strict=True))


class Surroundings(Record):
    """Facts about the user's location and carrier permissions; never shown directly to an actor.

    While the phone is bound to a CRM line (`phone_number` set) the four coupled fields (`roaming_allowed`,
    `mobile_data_usage_exceeded`, `line_active`, `payment_request`) are not consulted: they are derived from
    the CRM by `domains.telecom.binding` and kept at their defaults here.
    """

    name: str | None = None
    phone_number: str | None = None
    is_abroad: bool = False
    signal_strength: dict[NetworkTechnology, SignalStrength] = Field(default_factory=default_signal_map)
    roaming_allowed: bool = False
    mobile_data_usage_exceeded: bool = False
    line_active: bool = True
    payment_request: PaymentRequest | None = None

    @field_validator("signal_strength")
    @classmethod
    def _complete_signal_map(
        cls, value: dict[NetworkTechnology, SignalStrength]
    ) -> dict[NetworkTechnology, SignalStrength]:
        """Canonical form: exactly the four technologies in order, a missing one offering no signal."""
        return {technology: value.get(technology, SignalStrength.NONE) for technology in TECHNOLOGIES}
