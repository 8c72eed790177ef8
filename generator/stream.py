"""A generation read as it is verified: runs of drafts of one intent and number of subtasks are planned,
verified (one world per target) and built into tasks handed on one at a time, so that only the run in hand
is ever held."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from tau2.generator.assign import Draft
from tau2.generator.build import Plan, build_task
from tau2.generator.compose import Composition
from tau2.generator.lint import LintFinding, LintKind, missing_facts
from tau2.generator.options import GeneratorOptions, Order
from tau2.generator.replay import Outcome, verify_plans
from tau2.generator.verify import baseline_problem
from tau2.generator.workflow import Workflow
from tau2.tasks import Catalog, CatalogSource, Domain, ExtensionRecord, Task
from tau2.world import World


@dataclass(frozen=True, slots=True)
class Rejection:
    """A task that failed verification and was not written."""

    task_id: str
    reason: str


class TaskStream:
    """A generation under way: iterating it verifies the drafts a run of equal (intent, number of
    subtasks) at a time and yields each verified task once, in output order, so that only the tasks of
    the run in hand are ever held. Rejections, lint findings and the tally of written tasks grow as it is
    read, and are complete once it is exhausted; it can be read once."""

    def __init__(
        self,
        verifier: Verifier,
        drafts: list[tuple[Draft, Catalog]],
        findings: list[LintFinding],
        catalog_version: str,
        options: GeneratorOptions,
        extensions: tuple[ExtensionRecord, ...],
    ) -> None:
        self._verifier = verifier
        self._drafts: list[tuple[Draft, Catalog]] | None = drafts
        self.domain = verifier.domain.name
        """The domain the tasks name and run in."""
        self.catalog_version = catalog_version
        self.options = options
        """The options in effect: those given, with the transfer cap the extensions recommend filled in."""
        self.extensions = extensions
        """The catalog extensions layered onto the domain's catalog, in order."""
        self.rejected: list[Rejection] = []
        self.findings = findings
        self.tally = Tally()

    def __iter__(self) -> Iterator[Task]:
        drafts, self._drafts = self._drafts, None
        if drafts is None:
            raise RuntimeError("the tasks of a generation can be read only once")
        for run in _runs(drafts):
            yield from self._build(run)

    def _build(self, run: list[tuple[Draft, Catalog]]) -> Iterator[Task]:
        """The verified tasks of one run of drafts, built one at a time, recording rejections and findings
        on the way."""
        plans = self._verifier.plans(run)
        with collector_paused():
            checked = self._verifier.check(list(plans.values()))
        for draft, catalog in run:
            key = (catalog.target.key, draft.composition)
            outcome = checked[key]
            if outcome.problem is not None:
                self.rejected.append(Rejection(draft.task_id, outcome.problem))
                continue
            parameters = {name: str(value) for name, value in catalog.parameters.items()}
            facts = {**parameters, **catalog.target.facts, **catalog.facts, **outcome.situation}
            task = build_task(plans[key], draft.persona, facts, self._verifier.domain)
            self.tally.add(task)
            if self._verifier.lint:
                self.findings.extend(missing_facts(task, plans[key]))
                self.findings.extend(
                    LintFinding(subject=task.id, kind=LintKind.REDUNDANT_STEP, message=message)
                    for message in outcome.redundant
                )
            yield task


@dataclass(slots=True)
class Tally:
    """The tasks a generation wrote: how many per intent (in first-appearance order) and transfers."""

    intents: Counter[str] = field(default_factory=Counter)
    transfers: int = 0

    def add(self, task: Task) -> None:
        """Count one written task."""
        self.intents[task.intent or ""] += 1
        self.transfers += task.evaluation.expects_transfer

    @property
    def tasks(self) -> int:
        """How many tasks were written."""
        return sum(self.intents.values())


def _runs(drafts: list[tuple[Draft, Catalog]]) -> Iterator[list[tuple[Draft, Catalog]]]:
    """Maximal runs of consecutive drafts of the same intent and number of subtasks (how every selection
    orders them), each small enough to hold and large enough that its plans share most init calls."""
    for _, run in groupby(drafts, key=lambda pair: (pair[0].composition.intent, pair[0].size)):
        yield list(run)


class Verifier:
    """Verifies (and lints) plans on the domain's data, one world per target, each V1 baseline once per
    target and intent however many runs of drafts ask for it."""

    def __init__(
        self,
        domain: Domain[Any],
        data_dir: Path | None,
        source: CatalogSource,
        workflow: Workflow,
        order: Order,
        lint: bool,
    ) -> None:
        self.domain = domain
        self.lint = lint
        self._data_dir = data_dir
        self._source = source
        self._workflow = workflow
        self._order = order
        self._baselines: dict[tuple[str, str], str | None] = {}

    def plans(self, drafts: Sequence[tuple[Draft, Catalog]]) -> dict[tuple[str, Composition], Plan]:
        """One plan per distinct (target, composition) of the drafts, in first-appearance order."""
        plans: dict[tuple[str, Composition], Plan] = {}
        for draft, catalog in drafts:
            composition = draft.composition
            key = (catalog.target.key, composition)
            if key not in plans:
                subtasks = [catalog.subtask(name) for name in composition.subtasks]
                arrangement = self._workflow.arrange(subtasks, self._order)
                plans[key] = Plan(catalog, catalog.intent(composition.intent), composition, arrangement)
        return plans

    def check(self, plans: list[Plan]) -> dict[tuple[str, Composition], Outcome]:
        """Verify (and lint) every plan, one fresh world per target; results by (target, composition)."""
        by_target: dict[str, list[Plan]] = {}
        for plan in plans:
            by_target.setdefault(plan.catalog.target.key, []).append(plan)
        checked: dict[tuple[str, Composition], Outcome] = {}
        for target, target_plans in by_target.items():
            world = World.create(self.domain, self._data_dir)
            runnable = []
            for plan in target_plans:
                baseline = self._baseline(world, plan)
                if baseline is None:
                    runnable.append(plan)
                else:
                    checked[(target, plan.composition)] = Outcome(baseline)
            for plan, outcome in verify_plans(world, runnable, self._source.situation, self.lint):
                checked[(target, plan.composition)] = outcome
        return checked

    def _baseline(self, world: World, plan: Plan) -> str | None:
        """V1 for the plan's target and intent, checked once on an untouched world (restored after)."""
        key = (plan.catalog.target.key, plan.intent.name)
        if key not in self._baselines:
            untouched = world.snapshot()
            self._baselines[key] = baseline_problem(world, plan.setup, plan.intent)
            world.restore(untouched)
        return self._baselines[key]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: the loop allocates many short-lived, acyclic objects, and
    collections triggered by them would rescan every task built so far."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
