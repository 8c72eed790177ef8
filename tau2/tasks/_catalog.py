"""Subtask catalogs: the domain-agnostic data a compositional task generator works from.

A domain describes its atomic faults (subtasks) in mutually exclusive groups, the intents that compose
them, and the workflow precedences that order fault injections and fixes. It offers one catalog per
eligible target of a world (e.g. one customer's line), so the same catalog works on any data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tau2.tasks._parameters import TextTemplate
from tau2.tasks._task import AssertionCall, EnvCall
from tau2.world import World


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Step(EnvCall):
    """One reference action of a subtask's fix, performed by the seat `side`, at a workflow stage."""

    stage: str | None = None
    """The workflow stage this step belongs to; None means the stage named after the subtask's group."""


class Fact(_Frozen):
    """Something the customer knows that a fix depends on, and the phrase every text must use for it."""

    key: str
    phrase: str
    wordings: tuple[str, ...] = ()
    """Other phrases that state the same fact in texts written elsewhere (e.g. τ²-bench's task files), so
    that a check of those texts recognises it; generated texts always use `phrase`."""

    def stated_in(self, text: str) -> bool:
        """Whether `text` states the fact: it holds the phrase or one of the other wordings."""
        return any(wording in text for wording in (self.phrase, *self.wordings))


class TextFragments(_Frozen):
    """Sentences a subtask adds to its intent's text templates in every task that holds it (each after the
    intent's own text, in the task's init order), e.g. what the customer remembers about this fault."""

    purpose: TextTemplate | None = None
    reason_for_call: TextTemplate | None = None
    known_info: TextTemplate | None = None
    task_instructions: TextTemplate | None = None
    ticket: TextTemplate | None = None
    transfer_summary: TextTemplate | None = None


class Subtask(_Frozen):
    """One atomic fault: how to plant it, how to see it, and how to fix it (or that only a transfer can)."""

    name: str
    group: str
    description: str
    init: tuple[EnvCall, ...]
    checks: tuple[AssertionCall, ...] = ()
    """Assertions that must hold right after this subtask's init calls (generation time only)."""
    solution: tuple[Step, ...] = ()
    extra_assertions: tuple[AssertionCall, ...] = ()
    """Stored with the intent's success assertions when the task is fixable."""
    unfixable: bool = False
    """The correct outcome is a transfer to a human; there is no solution."""
    facts: tuple[Fact, ...] = ()
    """Facts the customer must be able to tell the agent for the solution to be reachable."""
    optional: bool = False
    """Offered only when the generator is asked to include it by name."""
    intents: tuple[str, ...] = ()
    """The intents this subtask may join; empty means every intent holding its group (a variant may break
    only some intents' predicates, e.g. a 3G-only network mode slows data but still carries MMS)."""
    transfer_assertions: tuple[AssertionCall, ...] = ()
    """For an unfixable subtask: what a transfer task holding it stores instead of the intent's failure
    assertions (e.g. "not excellent" when data works but too slowly); empty means the failure assertions."""
    texts: TextFragments = Field(default_factory=TextFragments)

    @model_validator(mode="after")
    def _solution_matches_fixability(self) -> Subtask:
        if not self.init:
            raise ValueError(f"subtask {self.name!r} has no init calls")
        if self.unfixable and self.solution:
            raise ValueError(f"unfixable subtask {self.name!r} must not have a solution")
        if not self.unfixable and not self.solution:
            raise ValueError(f"fixable subtask {self.name!r} needs a solution")
        if self.transfer_assertions and not self.unfixable:
            raise ValueError(f"fixable subtask {self.name!r} must not have transfer assertions")
        return self

    def offered_to(self, intent: str) -> bool:
        """Whether this subtask may join compositions of `intent` (given that the intent holds its group)."""
        return not self.intents or intent in self.intents

    def stage_of(self, step: Step) -> str:
        """The workflow stage of one of this subtask's steps."""
        return step.stage or self.group


class Group(_Frozen):
    """Mutually exclusive variants of one fault; a composition takes at most one subtask per group."""

    name: str
    workflow_step: str
    """Where the fault is handled in the domain's troubleshooting workflow, e.g. "2.1.3"."""
    description: str


class Texts(_Frozen):
    """Templates (text with `{fact}` fields, see `tau2.tasks.fill_text`) for what the user knows and the
    solo ticket."""

    purpose: TextTemplate
    reason_for_call: TextTemplate
    known_info: TextTemplate | None
    task_instructions: TextTemplate
    ticket: TextTemplate
    transfer_summary: TextTemplate
    """What the reference transfer action hands over to the human agent."""


class Intent(_Frozen):
    """What the customer calls about: which groups compose it and how success and failure are judged."""

    name: str
    groups: tuple[str, ...]
    """Groups in composition order."""
    prerequisites: tuple[str, ...] = ()
    """Groups that may join a composition but do not make it valid on their own."""
    min_own_subtasks: int = Field(default=1, ge=1)
    """Validity rule: at least this many subtasks from groups that are not prerequisites."""
    setup: tuple[EnvCall, ...] = ()
    """Init calls every task of this intent makes after the catalog's preamble and before any fault: the
    further records its scenario involves (another line, another customer, records the agent must leave
    alone). The success assertions must hold once they have run (V1)."""
    success: tuple[AssertionCall, ...]
    failure: tuple[AssertionCall, ...]
    texts: Texts

    @model_validator(mode="after")
    def _prerequisites_are_groups(self) -> Intent:
        stray = set(self.prerequisites) - set(self.groups)
        if stray:
            raise ValueError(f"intent {self.name!r}: prerequisites {sorted(stray)} are not among its groups")
        if not self.success or not self.failure:
            raise ValueError(f"intent {self.name!r} needs success and failure assertions")
        return self

    def is_valid(self, groups: set[str]) -> bool:
        """Whether a composition taking subtasks from `groups` satisfies the validity rule."""
        return len(groups - set(self.prerequisites)) >= self.min_own_subtasks


class Precedence(_Frozen):
    """`before` must come before `after` (stages for fixes, groups for fault injections)."""

    before: str
    after: str
    reason: str


class Target(_Frozen):
    """The entity a task plants its faults on (e.g. one customer's line), with facts the texts may use."""

    key: str
    facts: dict[str, str]


class Catalog(_Frozen):
    """Every subtask, group and intent of a domain, instantiated for one target."""

    version: str
    target: Target
    groups: tuple[Group, ...]
    subtasks: tuple[Subtask, ...]
    intents: tuple[Intent, ...]
    preamble: tuple[EnvCall, ...] = ()
    """Init calls every task starts with (e.g. binding the phone to the target's line)."""
    stages: tuple[str, ...]
    """Workflow stages of fix steps, in the order the workflow visits them (the topological tie-break)."""
    fix_order: tuple[Precedence, ...] = ()
    injection_order: tuple[Precedence, ...] = ()
    facts: dict[str, str] = Field(default_factory=dict)
    """Constant facts for the texts (e.g. an accepted refuel amount)."""
    parameters: dict[str, str | int | float | bool] = Field(default_factory=dict)
    """Named values of this target that catalog extensions' calls may use (e.g. a customer ID, a data
    allowance in GB); see `tau2.tasks.extend_catalog`."""

    @model_validator(mode="after")
    def _references_resolve(self) -> Catalog:
        groups = [group.name for group in self.groups]
        names = [subtask.name for subtask in self.subtasks]
        _unique("group", groups)
        _unique("subtask", names)
        _unique("intent", [intent.name for intent in self.intents])
        _unique("stage", list(self.stages))
        for subtask in self.subtasks:
            if subtask.group not in groups:
                raise ValueError(f"subtask {subtask.name!r} names unknown group {subtask.group!r}")
            for step in subtask.solution:
                if subtask.stage_of(step) not in self.stages:
                    raise ValueError(f"subtask {subtask.name!r}: unknown stage {subtask.stage_of(step)!r}")
        intents = {intent.name: intent for intent in self.intents}
        for intent in self.intents:
            unknown = set(intent.groups) - set(groups)
            if unknown:
                raise ValueError(f"intent {intent.name!r} names unknown groups {sorted(unknown)}")
        for subtask in self.subtasks:
            for name in subtask.intents:
                if name not in intents:
                    raise ValueError(f"subtask {subtask.name!r} names unknown intent {name!r}")
                if subtask.group not in intents[name].groups:
                    raise ValueError(
                        f"subtask {subtask.name!r}: intent {name!r} does not hold its group {subtask.group!r}"
                    )
        for rule in self.fix_order:
            _known("fix_order", rule, self.stages)
        for rule in self.injection_order:
            _known("injection_order", rule, groups)
        return self

    def subtask(self, name: str) -> Subtask:
        """The subtask called `name`."""
        for subtask in self.subtasks:
            if subtask.name == name:
                return subtask
        raise KeyError(name)

    def intent(self, name: str) -> Intent:
        """The intent called `name`."""
        for intent in self.intents:
            if intent.name == name:
                return intent
        raise KeyError(name)

    def variants(self, group: str) -> list[Subtask]:
        """The subtasks of `group` in declaration order."""
        return [subtask for subtask in self.subtasks if subtask.group == group]


def _unique(kind: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{kind} {name!r} is declared twice")
        seen.add(name)


def _known(field: str, rule: Precedence, names: tuple[str, ...] | list[str]) -> None:
    for name in (rule.before, rule.after):
        if name not in names:
            raise ValueError(f"{field}: {name!r} is not declared")


@runtime_checkable
class CatalogSource(Protocol):
    """What a domain pack registers as `Domain.catalog` for the generator."""

    def catalogs(self, world: World) -> list[Catalog]:
        """One catalog per eligible target of the world's data, the preferred target first."""
        ...

    def situation(self, world: World) -> dict[str, str]:
        """Facts the texts state that are read from the world after initialisation (e.g. location)."""
        ...


@runtime_checkable
class LayeredCatalogSource(CatalogSource, Protocol):
    """A catalog source that also offers named catalogs: its own catalog with extension files layered on
    (e.g. telecom's `extended`, τ²-bench's faults plus new ones). `base`, the catalog alone, is implied."""

    def catalog_layers(self) -> Mapping[str, tuple[Path, ...]]:
        """Extension files of each named catalog, in layering order."""
        ...
