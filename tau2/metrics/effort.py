"""What a configuration costs besides pass^k: per seat messages, tool calls, tool errors, tokens and cost,
actor turns, and how simulations end — as paired differences over shared tasks (B − A, per simulation)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from math import nan
from typing import Final

import numpy as np
from pydantic import BaseModel, ConfigDict

from tau2.episode import EntryKind, TerminationReason
from tau2.metrics.bootstrap import Bootstrap, Floats, estimate
from tau2.runs import SimulationRecord
from tau2.world import Side

BOTH: Final = "both"
"""The seat label of measures that belong to the episode rather than to one seat."""

RecordPair = tuple[Sequence[SimulationRecord], Sequence[SimulationRecord]]
"""The valid records of one paired task in run A and in run B."""

MeasureRow = Callable[[SimulationRecord], list[float]]
"""A simulation's value of each measure of a table, NaN where it is unknown (an unpriced seat's cost)."""


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


def effort_row(record: SimulationRecord) -> list[float]:
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


def paired_effort(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Every measure's paired difference; a task is left out of a measure a side cannot price."""
    return paired_means(pairs, MEASURES, effort_row, bootstrap)


def paired_terminations(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Per termination reason either run reached: the share of simulations ending so, A, B and B − A."""
    present = {record.termination for a, b in pairs for record in (*a, *b)}
    reasons = [reason for reason in TerminationReason if reason in present]
    return paired_means(
        pairs,
        [(BOTH, reason.value) for reason in reasons],
        lambda record: [float(record.termination is reason) for reason in reasons],
        bootstrap,
    )


def paired_means(
    pairs: Sequence[RecordPair], labels: Sequence[tuple[str, str]], row: MeasureRow, bootstrap: Bootstrap
) -> list[PairedMean]:
    """Per measure (labelled seat and name, in `row`'s order): the per-task means on each side over the
    tasks both sides measure, and their paired difference resampled over those tasks."""
    measured = [(a, b) for a, b in pairs if a and b]
    width = len(labels)
    per_task_a = np.array([_task_mean(a, row) for a, _ in measured]).reshape(-1, width)
    per_task_b = np.array([_task_mean(b, row) for _, b in measured]).reshape(-1, width)
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


def _task_mean(records: Sequence[SimulationRecord], row: MeasureRow) -> Floats:
    """The mean per simulation of each measure over one task's records (NaN if any value is unknown)."""
    values: Floats = np.array([row(record) for record in records], dtype=np.float64)
    means: Floats = values.mean(axis=0)
    return means
