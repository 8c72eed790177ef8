"""Domains and their registry. A domain is a world's rules (state, tools, coupling: `tau2.world`) with
what tasks need of it: a subtask catalog, a default suite, task hooks and, for a knowledge base, its
retrieval configurations. The engine never imports a concrete domain: the packs that ship them register
them as entry points `domain.NAME` of the `tau2.plugins` group (or by calling `register_domain`), or they
are named by a `module:attribute` or `file.py:attribute` reference."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from tau2._registry import Registry, is_reference
from tau2.errors import UnknownDomainError, UserInputError
from tau2.tasks._catalog import CatalogSource
from tau2.tasks._task import Task
from tau2.world import CustomerRecord, RetrievalConfig, World, WorldRules

State = TypeVar("State", bound=BaseModel)


@dataclass(frozen=True, eq=False)
class Domain(WorldRules[State]):
    """Everything the engine needs to simulate one domain and run its tasks: the world's rules, and the
    task-level parts below."""

    catalog: CatalogSource | None = None
    """The subtask catalog the task generator composes tasks from; None when the pack has none."""
    default_suite: Path | None = None
    """The suite `tau2 run --domain NAME` runs when no suite is given."""
    prepare_task: Callable[[State, Task], None] | None = None
    """Applies to a task's fresh world the settings the task implies rather than states, before its init
    calls (banking: which read tools' calls are logged, from the reference actions)."""
    retrieval: RetrievalSupport | None = None
    """The domain's retrieval configurations, when it has a knowledge base."""
    customer_record: Callable[[World, Task], CustomerRecord | None] | None = None
    """The record of the customer a task's user seat plays, read from the task's initialised world (None
    when the task names no customer of the data); `tau2 lint` checks the task's texts against it."""


@dataclass(frozen=True, eq=False)
class RetrievalSupport:
    """What a domain with a knowledge base offers: its configurations and what each one changes."""

    names: tuple[str, ...]
    """The configurations an agent can run under, by name."""
    default: RetrievalConfig
    """The configuration of a run that names none, declared once: a run's preparation (or an episode built
    directly) records it in the episode's configuration, and everything after reads it from there."""
    configure: Callable[[RetrievalConfig, Path | None], Domain[Any]]
    """The domain as an agent under this configuration sees it (its retrieval tools added); raises
    `UserInputError` for a configuration that cannot run here (unknown, a package or an embedder
    missing)."""
    policy: Callable[[RetrievalConfig, Path | None, Task | None], str]
    """The agent's instructions under a configuration, for a task (None: the configuration's template,
    what a run's manifest hashes)."""
    retrieved: Callable[
        [RetrievalConfig, Path | None, Task, Sequence[tuple[str, Mapping[str, Any], str]]], list[str]
    ]
    """The documents an agent was shown, given its (tool name, arguments, result text) calls."""
    required: Callable[[Task], list[str]]
    """The documents a task needs."""
    tools: frozenset[str]
    """Every retrieval tool a configuration may add, by name. They read the knowledge base and change
    nothing, so a replay of another tool's trajectory keeps their recorded answers (τ²-bench's end with
    a timing line, and a dense search needs its embeddings service)."""
    recorded: Callable[[str | None, Mapping[str, Any]], RetrievalConfig]
    """The configuration a τ²-bench results file records, as ours: its `retrieval_config` (None: τ²-bench's
    default for the domain) with its `retrieval_config_kwargs` (`top_k`; tau2's exports add
    `embedder_model` and `embedder_api_base`). Raises `UserInputError` for one the domain does not offer."""


def resolve_retrieval(domain: Domain[Any], config: RetrievalConfig | None) -> RetrievalConfig | None:
    """The retrieval configuration an episode of `domain` runs under: `config`, or the domain's default when
    it has a knowledge base (None without one). Called where an episode's configuration is settled (a
    run's preparation, an episode built directly); what comes after reads the settled configuration."""
    support = domain.retrieval
    return config if support is None or config is not None else support.default


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


def domain_of(world: World) -> Domain[Any]:
    """The domain `world` was built from, for what tasks need of it (its retrieval, its customer records):
    every task's world (`initialize_world`) holds its domain; a world built on bare rules has none."""
    rules = world.domain
    if not isinstance(rules, Domain):
        raise TypeError(f"this world of {rules.name!r} was built from world rules alone, not a domain")
    return rules
