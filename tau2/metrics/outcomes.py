"""Per-task outcomes of a run: valid trials, successes, and the attributes reports group tasks by."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from math import comb
from statistics import fmean
from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, computed_field, model_serializer

from tau2.episode import TerminationReason, mode_label
from tau2.metrics.retrieval import record_recall
from tau2.runs import RecordHead


class TaskOutcome(BaseModel):
    """One task of a run; `trials` counts valid trials only (infrastructure errors are `excluded`)."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    intent: str | None
    subtasks: int
    faults: list[str] = []
    """The composed subtasks by name (a task of two faults belongs to both fault groups)."""
    expects_transfer: bool = False
    persona: str | None
    mode: str
    trials: int
    successes: int
    excluded: int
    recall: float | None = None
    """Mean retrieval recall@k over the valid trials (runs on a knowledge base only)."""

    @model_serializer(mode="wrap")
    def _omit_unset_recall(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `recall` out for runs without a knowledge base, so their reports stay as they were."""
        data: dict[str, Any] = handler(self)
        if data.get("recall") is None:
            data.pop("recall", None)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_1(self) -> float | None:
        """Success rate over valid trials."""
        return self.successes / self.trials if self.trials else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def flip_rate(self) -> float | None:
        """Chance that two distinct valid trials disagree, c(n - c) / C(n, 2); None below two trials."""
        if self.trials < 2:
            return None
        return self.successes * (self.trials - self.successes) / comb(self.trials, 2)


def task_outcomes(records: Iterable[RecordHead]) -> list[TaskOutcome]:
    """One outcome per task, in order of first appearance."""
    tally = OutcomeTally()
    for record in records:
        tally.add(record)
    return tally.outcomes()


class TaskTally:
    """One task's outcome folded one record at a time: its attributes (from its first record) and its
    counts, never the records themselves."""

    def __init__(self, first: RecordHead) -> None:
        self.task_id, self.intent, self.faults = first.task_id, first.intent, first.subtasks
        self.subtasks, self.expects_transfer, self.persona = (
            first.num_subtasks,
            first.expects_transfer,
            first.persona,
        )
        self.mode = mode_label(first.mode, first.oracle_plan)
        self.trials = self.successes = self.excluded = 0
        self.recalls: list[float] = []

    def add(self, record: RecordHead) -> None:
        """Count one record of the task."""
        if record.excluded:
            self.excluded += 1
            return
        self.trials += 1
        self.successes += record.success
        if (recall := record_recall(record)) is not None:
            self.recalls.append(recall)

    def outcome(self) -> TaskOutcome:
        """The task's outcome so far (built from counts already typed: not validated again)."""
        return TaskOutcome.model_construct(
            task_id=self.task_id,
            intent=self.intent,
            subtasks=self.subtasks,
            faults=self.faults,
            expects_transfer=self.expects_transfer,
            persona=self.persona,
            mode=self.mode,
            trials=self.trials,
            successes=self.successes,
            excluded=self.excluded,
            recall=fmean(self.recalls) if self.recalls else None,
        )


class OutcomeTally:
    """Per-task outcomes and how simulations ended, folded one record at a time."""

    def __init__(self) -> None:
        self.tasks: dict[str, TaskTally] = {}
        self.endings: Counter[tuple[TerminationReason, bool]] = Counter()

    def add(self, record: RecordHead) -> TaskTally:
        """Count one record; returns its task's tally."""
        task = self.tasks.get(record.task_id)
        if task is None:
            task = self.tasks[record.task_id] = TaskTally(record)
        task.add(record)
        self.endings[record.termination, record.success] += 1
        return task

    def outcomes(self) -> list[TaskOutcome]:
        """One outcome per task, in order of first appearance."""
        return [task.outcome() for task in self.tasks.values()]

    def termination_outcomes(self) -> dict[str, dict[str, int]]:
        """Valid simulations per termination reason split into `pass` and `fail`, in the enum's order."""
        ended = self.endings
        return {
            reason.value: {"pass": ended[reason, True], "fail": ended[reason, False]}
            for reason in TerminationReason
            if not reason.is_infrastructure and (ended[reason, True] or ended[reason, False])
        }

    def termination_counts(self) -> dict[str, int]:
        """How many simulations ended for each reason, in the enum's order, zero counts left out."""
        ended = self.endings
        counts = {reason: ended[reason, True] + ended[reason, False] for reason in TerminationReason}
        return {reason.value: count for reason, count in counts.items() if count}


def termination_outcomes(records: Iterable[RecordHead]) -> dict[str, dict[str, int]]:
    """Valid simulations per termination reason split into `pass` and `fail`, reasons in the enum's order."""
    tally = OutcomeTally()
    for record in records:
        tally.add(record)
    return tally.termination_outcomes()


def termination_counts(records: Iterable[RecordHead]) -> dict[str, int]:
    """How many simulations ended for each reason, in the enum's order, zero counts left out."""
    tally = OutcomeTally()
    for record in records:
        tally.add(record)
    return tally.termination_counts()
