"""Identifier renaming as a perturbation of one simulation: the domain's data renamed by one bijection per
seed (customer, line, order, reservation, … ids, in the domain's own formats), and the task renamed for it
by replaying its reference actions on the original and the renamed worlds side by side, so the renamed
reference scores what the original does.

A domain's data is surveyed once per data directory (its identifiers, what it writes, a template of its
state); each renaming then costs a draw of new identifiers, one join of the template, one validation of
the state and the replay of the task's reference actions. The data's part of a renaming follows the seed
alone, so a renaming with the seed of the one before (every task of a domain renamed by one seed) reuses
its draw and its renamed state (and the renaming itself for a task holding no identifier of its own), and
costs the replay."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tau2.rebrand._delta import Delta
from tau2.rebrand._documents import task_documents_of, task_texts
from tau2.rebrand._kinds import walk_identifiers
from tau2.rebrand._lockstep import replay_renamed
from tau2.rebrand._renaming import GENERATED, Draw, Renaming, Survey
from tau2.rebrand._template import StateTemplate
from tau2.tasks import Domain, Task, TaskSetupError, get_domain, initialize_world
from tau2.world import RetrievalConfig, World

_SURVEYED = 8
"""Data directories whose survey is kept (a run uses one per domain)."""


@dataclass(frozen=True)
class RenamedStart:
    """A simulation's starting point under one renaming of the domain's identifiers: the renamed task (data
    patches, init calls, brief, ticket, reference actions, assertions and expected outputs), the renamed
    data its worlds start from, and the reference end state a database check compares with."""

    original: Task
    task: Task
    renaming: Renaming
    """Every identifier renamed, old → new (`renaming.identifiers`), those the task's tools write
    included; `renaming.kind_of` gives each one's kind."""
    base: BaseModel
    """The domain's data renamed, as a loaded state (copied by every world, never changed)."""
    reference: BaseModel
    """The state after the renamed reference actions on the renamed starting world."""
    problems: tuple[str, ...]
    """Where the renamed reference did not behave as the image of the original (empty when the renaming
    keeps the task's reward; worth recording when not)."""
    data_dir: Path | None
    """The data directory the original data came from (None: the domain's own); it still gives the
    knowledge base and the policy."""

    def task_identifiers(self) -> dict[str, str]:
        """The part of the renaming the task itself meets, old → new: the identifiers its data patches,
        calls, metadata and texts name and those its tools write (what a simulation's record keeps; the
        whole renaming follows from the seed)."""
        renaming = self.renaming
        named = set(renaming.task_only)
        named.update(old for old, kind in renaming.kind_of.items() if kind == GENERATED)
        for document, root in task_documents_of(self.original):
            named.update(value for _, value in walk_identifiers(renaming.kinds, document, root))
        for text in task_texts([self.original]):
            named.update(renaming.in_text(text))
        return {old: renaming.identifiers[old] for old in sorted(named) if old in renaming.identifiers}

    def world(self, retrieval: RetrievalConfig | None = None) -> World:
        """A fresh starting world of the renamed task (what `initialize_world` gives the original one)."""
        return initialize_world(self.task, self.data_dir, retrieval=retrieval, base=self.base)


def rename_identifiers(task: Task, seed: int, data_dir: Path | None = None) -> RenamedStart:
    """`task` and the data of `data_dir` (None: the domain's own) with every identifier renamed by the
    bijection `seed` draws: the same seed gives the same renaming, another seed another. Raises
    `TaskSetupError` when the task, or its renamed form, cannot be set up, and `UserInputError` when the
    domain declares no identifiers."""
    renaming, base = _surveyed(get_domain(task.domain), data_dir).renamed(task, seed)
    renamed = replay_renamed(
        renaming,
        task,
        lambda original: initialize_world(original, data_dir),
        lambda static: initialize_world(static, data_dir, base=base),
    )
    if renamed.setup is not None:
        raise TaskSetupError(task.id, renamed.setup)
    if renamed.end is None:
        raise TaskSetupError(task.id, f"identifier renaming: {'; '.join(renamed.problems)}")
    return RenamedStart(
        task, renamed.task, renamed.renaming, base, renamed.end, tuple(renamed.problems), data_dir
    )


class _Surveyed:
    """A data directory's state surveyed once for renaming (its identifiers and words, and its template),
    with the last seed's draw of the data's identifiers and the state they rename it into."""

    def __init__(
        self, domain: Domain[Any], survey: Survey, template: StateTemplate, state_type: type[BaseModel]
    ) -> None:
        self.domain = domain
        self.survey = survey
        self.template = template
        self.state_type = state_type
        self._last: tuple[Draw, BaseModel] | None = None

    def renamed(self, task: Task, seed: int) -> tuple[Renaming, BaseModel]:
        """The renaming `seed` draws for the data and `task`, and the surveyed state renamed by it (the
        last seed's state when the renaming keeps that seed's draw of the data, as it nearly always does)."""
        last = self._last
        if last is None or last[0].seed != seed:
            last = self._last = None  # let the last state go first: each one alive slows the collector
            drawn = self.survey.draw(seed)
            last = self._last = (drawn, self.state(drawn.identifiers))
        drawn, state = last
        renaming = self.survey.with_tasks([task]).renaming(seed, drawn)
        identifiers = renaming.identifiers
        if all(identifiers[old] == new for old, new in drawn.identifiers.items()):
            return renaming, state
        return renaming, self.state(identifiers)

    def state(self, identifiers: Mapping[str, str]) -> BaseModel:
        """The surveyed state with its identifiers renamed (old → new), loaded and coupled as a base state
        is."""
        state = self.state_type.model_validate_json(self.template.fill(identifiers))
        if self.domain.couple is not None:
            self.domain.couple(state)
        return state


@lru_cache(maxsize=_SURVEYED)
def _surveyed(domain: Domain[Any], data_dir: Path | None) -> _Surveyed:
    """The survey of the starting data of `domain` in `data_dir` (the state every task's world starts
    from, before the task's own patches), kept per directory."""
    state = World.create(domain, data_dir).state
    document = json.loads(state.__pydantic_serializer__.to_json(state))
    survey = Survey.of(domain, Delta(), [document])
    template = StateTemplate.of(survey.kinds, survey.found, survey.protected, document)
    return _Surveyed(domain, survey, template, type(state))
