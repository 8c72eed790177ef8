"""Domain packs and their registry. The engine never imports a concrete domain: packs register
themselves under the `tau2.domains` entry-point group (or by calling `register_domain`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from tau2.errors import UnknownDomainError
from tau2.world._tools import ToolTable

if TYPE_CHECKING:  # annotation only: catalogs and tasks are task-layer concepts
    from tau2.tasks import CatalogSource, Task
    from tau2.world._results import ToolResult
    from tau2.world._retrieval import RetrievalSupport

State = TypeVar("State", bound=BaseModel)

Patches = dict[str, Any] | None
"""A task's recursive data patch for one side (None when the task patches nothing there)."""


@dataclass(frozen=True, eq=False)
class Domain(Generic[State]):
    """Everything the engine needs to simulate one domain, typed against the pack's state model so the
    type checker checks every hook of a pack."""

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
    catalog: CatalogSource | None = None
    """The subtask catalog the task generator composes tasks from; None when the pack has none."""
    default_suite: Path | None = None
    """The suite `tau2 run --domain NAME` runs when no suite is given."""
    fresh_state: Callable[[State], State] | None = None
    """Copies a loaded base state into a new world's state cheaply (e.g. by sharing immutable records);
    None = every world re-validates the base state's JSON snapshot."""
    single_control: bool = False
    """The customer holds no tools and only talks (τ-bench's airline and retail)."""
    prepare_task: Callable[[State, Task], None] | None = None
    """Applies to a task's fresh world the settings the task implies rather than states, before its init
    calls (banking: which read tools' calls are logged, from the reference actions)."""
    refusal: Callable[[ToolResult], str | None] | None = None
    """For domains whose tools answer a refusal as ordinary text (banking, as τ²-bench): the refusal a
    successful result carries, or None. A refused transfer ends nothing; verification reports refused
    reference actions."""
    retrieval: RetrievalSupport | None = None
    """The domain's retrieval configurations, when it has a knowledge base."""


def refusal_of(domain: Domain[Any], result: ToolResult) -> str | None:
    """Why a call was refused: its failure, or the refusal its successful result carries; None when it
    was carried out."""
    if result.error is not None:
        return f"{result.error.code.value}: {result.error.message}"
    return domain.refusal(result) if domain.refusal is not None else None


_registered: dict[str, Domain[Any]] = {}


def register_domain(domain: Domain[Any]) -> None:
    """Make a domain available by name (a later registration of the same name replaces it)."""
    _registered[domain.name] = domain


@cache
def _entry_point_domains() -> dict[str, Any]:
    return {point.name: point for point in entry_points(group="tau2.domains")}


def available_domains() -> list[str]:
    """Names of every registered or installed domain."""
    return sorted(set(_registered) | set(_entry_point_domains()))


def get_domain(name: str) -> Domain[Any]:
    """The domain called `name`, loading its pack on first use."""
    if name in _registered:
        return _registered[name]
    point = _entry_point_domains().get(name)
    if point is None:
        known = ", ".join(available_domains()) or "none installed"
        raise UnknownDomainError(f"unknown domain {name!r} (available: {known})")
    domain = point.load()
    if not isinstance(domain, Domain):
        raise TypeError(f"entry point {name!r} does not name a tau2 Domain")
    register_domain(domain)
    return domain
