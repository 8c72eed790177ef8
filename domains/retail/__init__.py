"""The retail domain of τ-bench: an online shop's catalog, customers and orders, all held by the agent;
the customer has no tools and only talks."""

from tau2 import Domain, ToolTable

from ..tau_common.files import shipped_policy
from ..tau_common.pack_files import PackFiles
from .customer import customer_record
from .identifiers import IDENTIFIERS
from .state import DATA_DIR, RetailDB, fresh_copy
from .tools import AGENT_TOOLS

FILES = PackFiles(DATA_DIR, RetailDB)
"""The pack's own data: its database, policy and task file."""

DOMAIN: Domain[RetailDB] = Domain(
    name="retail",
    description=(
        "Online shop support: the agent cancels and modifies pending orders, returns and exchanges "
        "delivered ones, and updates addresses; the customer only talks."
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

__all__ = ["DATA_DIR", "DOMAIN", "FILES", "RetailDB"]
