"""What a configuration costs besides pass^k: per seat messages, tool calls, tool errors, tokens and cost,
actor turns, and how simulations end — as paired differences over shared tasks (B − A, per simulation)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.episode import EntryKind, TerminationReason
from tau2.metrics.bootstrap import Bootstrap, estimate
from tau2.runs import SimulationRecord
from tau2.world import Side

BOTH: Final = "both"
"""The seat label of measures that belong to the episode rather than to one seat."""

RecordPair = tuple[Sequence[SimulationRecord], Sequence[SimulationRecord]]
"""The valid records of one paired task in run A and in run B."""

Measure = Callable[[SimulationRecord], float | None]


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


def _entries(seat: Side, kind: EntryKind, failed: bool = False) -> Measure:
    def count(record: SimulationRecord) -> float:
        entries = record.trajectory.entries if record.trajectory is not None else []
        return sum(
            e.seat is seat and e.kind is kind and (not failed or (e.result is not None and not e.result.ok))
            for e in entries
        )

    return count


def _tokens(seat: Side) -> Measure:
    def tokens(record: SimulationRecord) -> float:
        usage = record.usage.get(seat)
        return 0 if usage is None else usage.prompt_tokens + usage.completion_tokens

    return tokens


def _cost(seat: Side) -> Measure:
    def cost(record: SimulationRecord) -> float | None:
        usage = record.usage.get(seat)
        return 0.0 if usage is None else usage.cost

    return cost


SEAT_MEASURES: Final[dict[str, Callable[[Side], Measure]]] = {
    "messages": lambda seat: _entries(seat, EntryKind.MESSAGE),
    "tool calls": lambda seat: _entries(seat, EntryKind.TOOL_CALL),
    "tool errors": lambda seat: _entries(seat, EntryKind.TOOL_RESULT, failed=True),
    "tokens": _tokens,
    "cost": _cost,
}
"""Per-seat measures of one simulation; a seat absent from a run (solo has no user) counts zero."""


def measures() -> list[tuple[str, str, Measure]]:
    """Every (seat, measure name, function), actor turns of the whole episode first."""
    rows: list[tuple[str, str, Measure]] = [(BOTH, "turns", lambda record: record.steps)]
    for seat in Side:
        rows += [(seat.value, name, make(seat)) for name, make in SEAT_MEASURES.items()]
    return rows


def paired_effort(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Every measure's paired difference; a task is left out of a measure a side cannot price."""
    return [paired_mean(pairs, seat, name, measure, bootstrap) for seat, name, measure in measures()]


def paired_terminations(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[PairedMean]:
    """Per termination reason either run reached: the share of simulations ending so, A, B and B − A."""
    reasons = {record.termination for a, b in pairs for record in (*a, *b)}
    return [
        paired_mean(pairs, BOTH, reason.value, _ends(reason), bootstrap)
        for reason in TerminationReason
        if reason in reasons
    ]


def _ends(reason: TerminationReason) -> Measure:
    return lambda record: float(record.termination is reason)


def paired_mean(
    pairs: Sequence[RecordPair], seat: str, name: str, measure: Measure, bootstrap: Bootstrap
) -> PairedMean:
    """Per-task means of `measure` on each side, and their paired difference resampled over tasks."""
    per_task = [(_mean(a, measure), _mean(b, measure)) for a, b in pairs if a and b]
    known = [(va, vb) for va, vb in per_task if va is not None and vb is not None]
    if not known:
        return PairedMean(
            seat=seat, measure=name, a=None, b=None, diff=None, ci_low=None, ci_high=None, tasks=0
        )
    diff = estimate([vb - va for va, vb in known], bootstrap)
    return PairedMean(
        seat=seat,
        measure=name,
        a=fmean(va for va, _ in known),
        b=fmean(vb for _, vb in known),
        diff=diff.value,
        ci_low=diff.ci_low,
        ci_high=diff.ci_high,
        tasks=len(known),
    )


def _mean(records: Sequence[SimulationRecord], measure: Measure) -> float | None:
    values = [measure(record) for record in records]
    return None if any(value is None for value in values) else fmean(v for v in values if v is not None)
