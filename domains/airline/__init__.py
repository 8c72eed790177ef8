"""The airline domain of τ-bench: flights, users and reservations, all held by the agent; the customer
has no tools and only talks."""

from tau2 import Domain, ToolTable

from ..tau_common.files import shipped_policy
from ..tau_common.pack_files import PackFiles
from .customer import customer_record
from .identifiers import IDENTIFIERS
from .state import DATA_DIR, FlightDB, fresh_copy
from .tools import AGENT_TOOLS

FILES = PackFiles(DATA_DIR, FlightDB)
"""The pack's own data: its database, policy and task file."""

DOMAIN: Domain[FlightDB] = Domain(
    name="airline",
    description=(
        "Airline reservations desk: the agent books, changes and cancels flights and issues certificates; "
        "the customer only talks."
    ),
    tools=ToolTable(AGENT_TOOLS),
    load_state=FILES.load_state,
    policy=FILES.policy,
    data_policy=shipped_policy,
    transfer_tool="transfer_to_human_agents",
    fresh_state=fresh_copy,
    single_control=True,
    default_suite=FILES.default_suite,
    customer_record=customer_record,
    identifiers=IDENTIFIERS,
)

__all__ = ["DATA_DIR", "DOMAIN", "FILES", "FlightDB"]
