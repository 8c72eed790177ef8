"""τ²-bench's banking domain (`banking_knowledge`): a bank's customer service where the agent verifies
the customer, finds the procedure in a knowledge base, unlocks the internal tools the procedure names
and calls them, or hands a tool to the customer, who calls it. Both seats act on one database, whose
final state (including logs of which hidden tools were called or handed over) decides the reward."""

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

from tau2 import Domain, ToolResult, ToolTable
from tau2.world import RetrievalConfig, Side

from . import hidden_accounts, hidden_credit, hidden_debit, hidden_misc, hidden_user
from .agent_tools import AGENT_TOOLS
from .customer import customer_record
from .discoverable import AGENT_HIDDEN, USER_HIDDEN
from .identifiers import IDENTIFIERS
from .loader import DATA_DIR, DEFAULT_TASKS, load_state, patch_state, prepare_task
from .retrieval import KNOWLEDGE
from .state import BankDB, fresh_copy
from .user_tools import USER_TOOLS

HIDDEN_TOOL_MODULES = (hidden_accounts, hidden_credit, hidden_debit, hidden_misc, hidden_user)
"""The modules registering the hidden tools (imported for that)."""

REFUSAL_PREFIXES = ("Error:", "Failed")


def discoverable_tools() -> dict[str, Side]:
    """The hidden tools by seat: the agent's to unlock and call, the customer's to be handed."""
    return {**dict.fromkeys(AGENT_HIDDEN, Side.AGENT), **dict.fromkeys(USER_HIDDEN, Side.USER)}


def refusal(result: ToolResult) -> str | None:
    """The refusal a result carries: the bank's tools answer `Error: …` or `Failed …` instead of failing."""
    text = result.content if isinstance(result.content, str) else ""
    return text.splitlines()[0] if text.startswith(REFUSAL_PREFIXES) else None


@cache
def base_policy(solo: bool, variant: str) -> str:
    """Our instructions without a knowledge base (what the domain shows before a configuration is chosen)."""
    return KNOWLEDGE.policy(RetrievalConfig(name="no_knowledge"), None, None)


@cache
def configured(config: RetrievalConfig, data_dir: Path | None) -> Domain[Any]:
    """The domain an agent under `config` sees: the configuration's retrieval tools first, then the bank's;
    built once per configuration and data directory."""
    tools = ToolTable(KNOWLEDGE.toolset(config, data_dir), AGENT_TOOLS, USER_TOOLS)
    return dataclasses.replace(DOMAIN, tools=tools)


DOMAIN: Domain[BankDB] = Domain(
    name="banking_knowledge",
    description=(
        "Bank customer service with a knowledge base: the agent verifies the customer, looks up the "
        "procedure, unlocks and calls the internal tools it names or hands one to the customer."
    ),
    tools=ToolTable(AGENT_TOOLS, USER_TOOLS),
    load_state=load_state,
    patch_state=patch_state,
    policy=base_policy,
    transfer_tool="transfer_to_human_agents",
    fresh_state=fresh_copy,
    default_suite=DEFAULT_TASKS,
    prepare_task=prepare_task,
    refusal=refusal,
    discoverable_tools=discoverable_tools,
    customer_record=customer_record,
    identifiers=IDENTIFIERS,
    retrieval=KNOWLEDGE.support(configured),
)
"""The pack; its `tools` are the bank's own, those of a run come from `configured`."""

__all__ = ["DATA_DIR", "DOMAIN", "BankDB", "load_state"]
