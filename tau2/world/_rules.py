"""What a world of one domain is made of and how it behaves: its state, tools, coupling rules and
invariants, and the conventions its actors follow. A domain (`tau2.tasks.Domain`) extends these rules
with what tasks need of it; a world needs the rules alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from tau2.world._phrasing import NEUTRAL_PHRASING, RequestPhrasing
from tau2.world._tools import Side, ToolTable

if TYPE_CHECKING:
    from tau2.world._identifiers import Identifiers
    from tau2.world._results import ToolResult

State = TypeVar("State", bound=BaseModel)

Patches = dict[str, Any] | None
"""A task's recursive data patch for one side (None when the task patches nothing there)."""


@dataclass(frozen=True, eq=False)
class WorldRules(Generic[State]):
    """The world-level half of a domain, typed against the pack's state model so the type checker
    checks every hook of a pack."""

    name: str
    description: str
    tools: ToolTable
    load_state: Callable[[Path | None], State]
    """Builds a fresh state from a data directory, or from the pack's own data when None."""
    couple: Callable[[State], None] | None = None
    """Re-establishes cross-side invariants after a write; None when they are derived reads."""
    invariants: Callable[[State], list[str]] | None = None
    """Lists violated invariants of a state (empty when sound); used by tests and checkers."""
    patch_state: Callable[[State, Patches, Patches], State] | None = None
    """Applies a task's recursive data patches (agent side, user side) and returns the revalidated state."""
    policy: Callable[[bool, str], str] | None = None
    """Agent policy text for (solo, variant)."""
    data_policy: Callable[[Path], str | None] | None = None
    """The policy a data directory ships (e.g. τ²-bench's `policy.md`), which the agent reads instead of
    `policy` when running on that directory; None from the callable = the directory has none."""
    transfer_tool: str | None = None
    """The agent tool whose successful call hands the conversation to a human."""
    fresh_state: Callable[[State], State] | None = None
    """Copies a loaded base state into a new world's state cheaply (e.g. by sharing immutable records);
    None = every world re-validates the base state's JSON snapshot."""
    single_control: bool = False
    """The customer holds no tools and only talks (τ-bench's airline and retail)."""
    refusal: Callable[[ToolResult], str | None] | None = None
    """For domains whose tools answer a refusal as ordinary text (banking, as τ²-bench): the refusal a
    successful result carries, or None. A refused transfer ends nothing; verification reports refused
    reference actions."""
    phrasing: RequestPhrasing = NEUTRAL_PHRASING
    """How the offline oracle agent and scripted user word their requests here (the neutral wording unless
    the domain gives its own)."""
    discoverable_tools: Callable[[], Mapping[str, Side]] | None = None
    """Tools a seat reaches through the domain's own mechanism rather than its tool table, by name and seat
    (banking's hidden tools, which the agent unlocks or hands to the customer); texts may name them."""
    identifiers: Identifiers | None = None
    """Which values of the domain's data are identifiers of which kind, and how new ones are written: what
    `tau2 rebrand` and identifier renaming need (None: the domain cannot be renamed)."""


def refusal_of(rules: WorldRules[Any], result: ToolResult) -> str | None:
    """Why a call was refused: its failure, or the refusal its successful result carries; None when it
    was carried out."""
    if result.error is not None:
        return f"{result.error.code.value}: {result.error.message}"
    return rules.refusal(result) if rules.refusal is not None else None
