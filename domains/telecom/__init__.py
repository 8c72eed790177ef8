"""The telecom domain: a carrier's CRM (agent side) and the customer's phone (user side), coupled through
the line the phone is bound to (spec/telecom.md); and the extended domain, which adds the carrier's further
services for the extended catalog's tasks."""

from tau2.domains.telecom.agent_env import AGENT_ENV
from tau2.domains.telecom.agent_tools import AGENT_TOOLS
from tau2.domains.telecom.catalog import CATALOG, DEFAULT_SUITE
from tau2.domains.telecom.crm import (
    AccountStatus,
    Address,
    Bill,
    BillStatus,
    Customer,
    Device,
    DeviceType,
    Line,
    LineItem,
    LineStatus,
    PaymentMethod,
    PaymentMethodType,
    Plan,
    TelecomDB,
)
from tau2.domains.telecom.customer import customer_record
from tau2.domains.telecom.export import dump_tau2_user_db
from tau2.domains.telecom.extended_domain import EXTENDED_DOMAIN
from tau2.domains.telecom.extended_state import ExtendedTelecomState
from tau2.domains.telecom.identifiers import IDENTIFIERS
from tau2.domains.telecom.invariants import invariant_violations
from tau2.domains.telecom.loader import DATA_DIR, load_files, load_state
from tau2.domains.telecom.patches import apply_patches
from tau2.domains.telecom.phone import (
    ApnName,
    APNSettings,
    AppPermissions,
    AppStatus,
    ConnectionStatus,
    DeviceState,
    NetworkModePreference,
    NetworkTechnology,
    PaymentRequest,
    SignalStrength,
    SimCardStatus,
    Surroundings,
    VpnDetails,
    VpnPerformance,
)
from tau2.domains.telecom.policies import policy
from tau2.domains.telecom.scenarios import PHRASING
from tau2.domains.telecom.state import TelecomState
from tau2.domains.telecom.user_env import USER_ENV
from tau2.domains.telecom.user_tools import USER_TOOLS
from tau2.tasks import Domain
from tau2.world import ToolTable

DOMAIN: Domain[TelecomState] = Domain(
    name="telecom",
    description=(
        "Mobile carrier support: the agent holds the CRM (customers, lines, plans, bills), the customer "
        "holds the phone (SIM, network, data, APN, Wi-Fi, VPN, apps); faults span both sides."
    ),
    tools=ToolTable(AGENT_TOOLS, AGENT_ENV, USER_TOOLS, USER_ENV),
    load_state=load_state,
    invariants=invariant_violations,
    policy=policy,
    transfer_tool="transfer_to_human_agents",
    patch_state=apply_patches,
    catalog=CATALOG,
    default_suite=DEFAULT_SUITE,
    phrasing=PHRASING,
    customer_record=customer_record,
    identifiers=IDENTIFIERS,
)

__all__ = [
    "DATA_DIR",
    "DOMAIN",
    "EXTENDED_DOMAIN",
    "APNSettings",
    "AccountStatus",
    "Address",
    "ApnName",
    "AppPermissions",
    "AppStatus",
    "Bill",
    "BillStatus",
    "ConnectionStatus",
    "Customer",
    "Device",
    "DeviceState",
    "DeviceType",
    "ExtendedTelecomState",
    "Line",
    "LineItem",
    "LineStatus",
    "NetworkModePreference",
    "NetworkTechnology",
    "PaymentMethod",
    "PaymentMethodType",
    "PaymentRequest",
    "Plan",
    "SignalStrength",
    "SimCardStatus",
    "Surroundings",
    "TelecomDB",
    "TelecomState",
    "VpnDetails",
    "VpnPerformance",
    "apply_patches",
    "dump_tau2_user_db",
    "invariant_violations",
    "load_files",
    "load_state",
    "policy",
]
