"""Per-task outcomes of a run: valid trials, successes, and the attributes reports group tasks by."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from math import comb
from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, computed_field, model_serializer

from tau2.episode import TerminationReason, mode_label
from tau2.metrics.retrieval import mean_recall
from tau2.runs import SimulationRecord


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


def task_outcomes(records: Sequence[SimulationRecord]) -> list[TaskOutcome]:
    """One outcome per task, in order of first appearance."""
    by_task: dict[str, list[SimulationRecord]] = {}
    for record in records:
        by_task.setdefault(record.task_id, []).append(record)
    return [_outcome(group) for group in by_task.values()]


def _outcome(records: list[SimulationRecord]) -> TaskOutcome:
    first = records[0]
    valid = [record for record in records if not record.excluded]
    return TaskOutcome(
        task_id=first.task_id,
        intent=first.intent,
        subtasks=first.num_subtasks,
        faults=first.subtasks,
        expects_transfer=first.expects_transfer,
        persona=first.persona,
        mode=mode_label(first.mode, first.oracle_plan),
        trials=len(valid),
        successes=sum(record.success for record in valid),
        excluded=len(records) - len(valid),
        recall=mean_recall(records),
    )


def termination_outcomes(records: Sequence[SimulationRecord]) -> dict[str, dict[str, int]]:
    """Valid simulations per termination reason split into `pass` and `fail`, reasons in the enum's order."""
    ended = Counter((record.termination, record.success) for record in records if not record.excluded)
    return {
        reason.value: {"pass": ended[reason, True], "fail": ended[reason, False]}
        for reason in TerminationReason
        if ended[reason, True] or ended[reason, False]
    }


def termination_counts(records: Sequence[SimulationRecord]) -> dict[str, int]:
    """How many simulations ended for each reason, in the enum's order, zero counts left out."""
    counts = Counter(record.termination for record in records)
    return {reason.value: counts[reason] for reason in TerminationReason if counts[reason]}
