"""Domain packs and their registry. The engine never imports a concrete domain: packs register
themselves as entry points `domain.NAME` of the `tau2.plugins` group (or by calling `register_domain`), or
are named by a `module:attribute` or `file.py:attribute` reference."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from pydantic import BaseModel

from tau2._registry import Registry, is_reference
from tau2.errors import UnknownDomainError, UserInputError
from tau2.world._phrasing import NEUTRAL_PHRASING, RequestPhrasing
from tau2.world._tools import Side, ToolTable

if TYPE_CHECKING:  # annotation only: catalogs and tasks are task-layer concepts
    from tau2.tasks import CatalogSource, Task
    from tau2.world._customer import CustomerRecord
    from tau2.world._identifiers import Identifiers
    from tau2.world._results import ToolResult
    from tau2.world._retrieval import RetrievalSupport
    from tau2.world._world import World

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
    phrasing: RequestPhrasing = NEUTRAL_PHRASING
    """How the offline oracle agent and scripted user word their requests here (the neutral wording unless
    the domain gives its own)."""
    discoverable_tools: Callable[[], Mapping[str, Side]] | None = None
    """Tools a seat reaches through the domain's own mechanism rather than its tool table, by name and seat
    (banking's hidden tools, which the agent unlocks or hands to the customer); texts may name them."""
    customer_record: Callable[[World, Task], CustomerRecord | None] | None = None
    """The record of the customer a task's user seat plays, read from the task's initialised world (None
    when the task names no customer of the data); `tau2 lint` checks the task's texts against it."""
    identifiers: Identifiers | None = None
    """Which values of the domain's data are identifiers of which kind, and how new ones are written: what
    `tau2 rebrand` and identifier renaming need (None: the domain cannot be renamed)."""


def refusal_of(domain: Domain[Any], result: ToolResult) -> str | None:
    """Why a call was refused: its failure, or the refusal its successful result carries; None when it
    was carried out."""
    if result.error is not None:
        return f"{result.error.code.value}: {result.error.message}"
    return domain.refusal(result) if domain.refusal is not None else None


def _accept(name: str, loaded: object) -> Domain[Any]:
    if not isinstance(loaded, Domain):
        raise UserInputError(f"domain {name!r} names a {type(loaded).__name__}, not a tau2 Domain")
    return loaded


def _unknown(name: str, names: list[str]) -> UserInputError:
    available = ", ".join(names) or "none installed"
    return UnknownDomainError(
        f"unknown domain {name!r} (available: {available}; a pack that is not installed is named as "
        "module:attribute or path/to/file.py:attribute)"
    )


_DOMAINS: Registry[Domain[Any]] = Registry("domain", "domain", _accept, _unknown, legacy_group="tau2.domains")
"""Packages install domains as entry points `domain.NAME` of the `tau2.plugins` group, each naming a
`Domain`."""

Built = TypeVar("Built", bound=Domain[Any])


@overload
def register_domain(domain: Built) -> Built: ...


@overload
def register_domain(domain: str) -> Callable[[Callable[[], Built]], Callable[[], Built]]: ...


def register_domain(
    domain: Built | str,
) -> Built | Callable[[Callable[[], Built]], Callable[[], Built]]:
    """Make a domain available by its name (a later registration of the same name replaces it) and return
    it; or, given a name, a decorator registering a function that builds that domain on first use."""
    if isinstance(domain, Domain):
        _DOMAINS.register(domain.name, domain)
        return domain
    name = domain

    def decorate(build: Callable[[], Built]) -> Callable[[], Built]:
        def checked() -> Built:
            built = build()
            if isinstance(built, Domain) and built.name != name:
                raise UserInputError(f"the builder registered as {name!r} built domain {built.name!r}")
            return built

        _DOMAINS.register_builder(name, checked)
        return build

    return decorate


def available_domains() -> list[str]:
    """Names of every registered or installed domain."""
    return _DOMAINS.names()


def get_domain(name: str) -> Domain[Any]:
    """The domain called `name` (registered or installed), or named by a `module:attribute` reference,
    loading its pack on first use. A domain found under another name (a reference, an entry point named
    otherwise) is also registered under its own, so the tasks and suites that name it find it."""
    domain = _DOMAINS.get(name)
    if domain.name != name:
        _DOMAINS.register(domain.name, domain)
    return domain


def domain_name(name: str) -> str:
    """The name of the domain `name` stands for: `name` itself, or the referenced domain's own name."""
    return get_domain(name).name if is_reference(name) else name
