"""What a configuration costs besides pass^k: per seat messages, tool calls, tool errors, tokens and cost,
actor turns, and how simulations end — as paired differences over shared tasks (B − A, per simulation)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from math import nan
from typing import Final

import numpy as np
from pydantic import BaseModel, ConfigDict

from tau2.episode import EntryKind, TerminationReason
from tau2.metrics.bootstrap import Bootstrap, estimate
from tau2.runs import EffortHead, SimulationRecord
from tau2.world import Side

BOTH: Final = "both"
"""The seat label of measures that belong to the episode rather than to one seat."""

RecordPair = tuple[Sequence[SimulationRecord], Sequence[SimulationRecord]]
"""The valid records of one paired task in run A and in run B."""
Measured = EffortHead | SimulationRecord
"""What effort is measured on: a whole record, or its head with its transcript's shape (`EffortHead`), which
reads the same measures without building the transcript."""


class PairedMean(BaseModel):
    """Mean per simulation in A and B over the tasks both can measure, and B − A with its paired interval."""

    model_config = ConfigDict(frozen=True)

    seat: str
    measure: str
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    tasks: int


SEAT_MEASURES: Final = ("messages", "tool calls", "tool errors", "tokens", "cost")
"""Per-seat measures of one simulation; a seat absent from a run (solo has no user) counts zero."""

MEASURES: Final = ((BOTH, "turns"), *((seat.value, name) for seat in Side for name in SEAT_MEASURES))
"""Every (seat, measure) of the effort table, actor turns of the whole episode first."""


def effort_row(record: Measured) -> list[float]:
    """The simulation's value of every measure in `MEASURES`, from one pass over its trajectory."""
    counted: Counter[tuple[Side, EntryKind]] = Counter()
    failed: Counter[Side] = Counter()
    for entry in record.trajectory.entries if record.trajectory is not None else []:
        counted[entry.seat, entry.kind] += 1
        failed[entry.seat] += (
            entry.kind is EntryKind.TOOL_RESULT and entry.result is not None and not entry.result.ok
        )
    row = [float(record.steps)]
    for seat in Side:
        usage = record.usage.get(seat)
        tokens = 0 if usage is None else usage.prompt_tokens + usage.completion_tokens
        cost = 0.0 if usage is None else nan if usage.cost is None else usage.cost
        row += [
            counted[seat, EntryKind.MESSAGE],
            counted[seat, EntryKind.TOOL_CALL],
            failed[seat],
            tokens,
            cost,
        ]
    return row


class TaskEffort:
    """One task's valid records in one run reduced to what a comparison's effort, endings and action
    tables need: their number, the sum of their effort rows, their endings and their reference actions."""

    def __init__(self) -> None:
        self.count = 0
        self.sums = [0.0] * len(MEASURES)
        self.endings: Counter[TerminationReason] = Counter()
        self.actions: dict[str, tuple[Side, int, int]] = {}
        """Per expected action name: its seat (as first seen), occurrences performed, occurrences expected."""

    @classmethod
    def of(cls, records: Iterable[Measured]) -> TaskEffort:
        """The effort of a task's valid records (excluded ones are skipped)."""
        effort = cls()
        for record in records:
            if not record.excluded:
                effort.add(record)
        return effort

    def add(self, record: Measured) -> None:
        """Add one valid record."""
        self.add_row(record, effort_row(record))

    def add_row(self, record: Measured, row: Sequence[float]) -> None:
        """Add one valid record whose `effort_row` is `row` (already computed by the caller)."""
        self.count += 1
        self.sums = [total + value for total, value in zip(self.sums, row, strict=True)]
        self.endings[record.termination] += 1
        for action in record.actions:
            side, performed, expected = self.actions.get(action.name, (action.side, 0, 0))
            self.actions[action.name] = (side, performed + action.performed, expected + 1)

    def mean_row(self) -> list[float]:
        """The mean per simulation of each measure in `MEASURES` (NaN where any value is unknown)."""
        return [total / self.count for total in self.sums]


EffortPair = tuple[TaskEffort, TaskEffort]
"""One paired task's effort in run A and in run B."""


def task_efforts(pairs: Sequence[RecordPair]) -> list[EffortPair]:
    """Each side's records of each pair reduced to its `TaskEffort`."""
    return [(TaskEffort.of(a), TaskEffort.of(b)) for a, b in pairs]


def paired_effort(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Every measure's paired difference; a task is left out of a measure a side cannot price."""
    return paired_task_effort(task_efforts(pairs), bootstrap)


def paired_task_effort(pairs: Sequence[EffortPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """`paired_effort` from the tasks' efforts."""
    return paired_means(pairs, MEASURES, TaskEffort.mean_row, bootstrap)


def paired_terminations(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Per termination reason either run reached: the share of simulations ending so, A, B and B − A."""
    return paired_task_terminations(task_efforts(pairs), bootstrap)


def paired_task_terminations(pairs: Sequence[EffortPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """`paired_terminations` from the tasks' efforts."""
    present = {reason for a, b in pairs for effort in (a, b) for reason in effort.endings}
    reasons = [reason for reason in TerminationReason if reason in present]
    return paired_means(
        pairs,
        [(BOTH, reason.value) for reason in reasons],
        lambda effort: [effort.endings[reason] / effort.count for reason in reasons],
        bootstrap,
    )


def paired_means(
    pairs: Sequence[EffortPair],
    labels: Sequence[tuple[str, str]],
    task_mean: Callable[[TaskEffort], list[float]],
    bootstrap: Bootstrap,
) -> list[PairedMean]:
    """Per measure (labelled seat and name, in `task_mean`'s order): the per-task means on each side over
    the tasks both sides measure, and their paired difference resampled over those tasks."""
    measured = [(a, b) for a, b in pairs if a.count and b.count]
    width = len(labels)
    per_task_a = np.array([task_mean(a) for a, _ in measured], dtype=np.float64).reshape(-1, width)
    per_task_b = np.array([task_mean(b) for _, b in measured], dtype=np.float64).reshape(-1, width)
    means = []
    for column, (seat, name) in enumerate(labels):
        known = ~np.isnan(per_task_a[:, column]) & ~np.isnan(per_task_b[:, column])
        a, b = per_task_a[known, column], per_task_b[known, column]
        diff = estimate(b - a, bootstrap)
        means.append(
            PairedMean(
                seat=seat,
                measure=name,
                a=float(a.mean()) if len(a) else None,
                b=float(b.mean()) if len(b) else None,
                diff=diff.value,
                ci_low=diff.ci_low,
                ci_high=diff.ci_high,
                tasks=len(a),
            )
        )
    return means
