"""Paired comparison of two runs on the tasks they share: differences in pass^k with paired bootstrap
intervals, the tasks that flip each way, and per-group and per-action differences."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from statistics import fmean
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.errors import UserInputError
from tau2.metrics.actions import ActionStat
from tau2.metrics.bootstrap import Bootstrap, estimate
from tau2.metrics.breakdown import GROUPINGS, group_by
from tau2.metrics.outcomes import TaskOutcome
from tau2.metrics.passk import pass_hat_k

_PERSONA_SUFFIX = re.compile(r"\[PERSONA:[^\[\]]*\]$")


class PairBy(StrEnum):
    """How tasks of two runs are matched: by identical task ID, or by ID without its `[PERSONA:x]` part."""

    TASK = "task"
    COMPOSITION = "composition"


class Pair(BaseModel):
    """The same task (or composition) in run A and in run B."""

    model_config = ConfigDict(frozen=True)

    key: str
    a: TaskOutcome
    b: TaskOutcome


class PairedEstimate(BaseModel):
    """pass^k of A and of B over the tasks both can estimate, and B − A with its paired interval."""

    model_config = ConfigDict(frozen=True)

    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    tasks: int


class FlipSets(BaseModel):
    """Paired keys solved only in B (`gained`) and only in A (`lost`)."""

    model_config = ConfigDict(frozen=True)

    gained: list[str]
    lost: list[str]


class PairedGroup(BaseModel):
    """Paired pass^k within one group of pairs."""

    model_config = ConfigDict(frozen=True)

    key: str
    tasks: int
    pass_hat_k: dict[str, PairedEstimate]


class ActionDiff(BaseModel):
    """How often an expected action was performed in A and in B, and the difference."""

    model_config = ConfigDict(frozen=True)

    name: str
    a: float | None
    b: float | None
    diff: float | None


SOLVED: Final[dict[str, Callable[[TaskOutcome], bool]]] = {
    "majority": lambda o: 2 * o.successes > o.trials,
    "all_trials": lambda o: o.successes == o.trials,
}
"""When a task counts as solved for flips: a strict majority of its valid trials, or every one of them."""


def pair_key(task_id: str, pair_by: PairBy) -> str:
    """The key a task is paired on."""
    return task_id if pair_by is PairBy.TASK else _PERSONA_SUFFIX.sub("", task_id)


def pair_outcomes(a: Sequence[TaskOutcome], b: Sequence[TaskOutcome], pair_by: PairBy) -> list[Pair]:
    """Pairs of the keys present in both runs, in A's order."""
    keyed_a, keyed_b = _by_key(a, pair_by, "A"), _by_key(b, pair_by, "B")
    return [Pair(key=key, a=outcome, b=keyed_b[key]) for key, outcome in keyed_a.items() if key in keyed_b]


def _by_key(outcomes: Sequence[TaskOutcome], pair_by: PairBy, run: str) -> dict[str, TaskOutcome]:
    keyed: dict[str, TaskOutcome] = {}
    for outcome in outcomes:
        key = pair_key(outcome.task_id, pair_by)
        if key in keyed:
            raise UserInputError(
                f"run {run} has tasks {keyed[key].task_id!r} and {outcome.task_id!r} for the same "
                f"{pair_by.value} {key!r}; pair by task instead"
            )
        keyed[key] = outcome
    return keyed


def paired_curve(pairs: Sequence[Pair], max_k: int, bootstrap: Bootstrap) -> dict[str, PairedEstimate]:
    """Paired pass^k for k = 1..max_k over pairs where both sides have at least k valid trials."""
    return {str(k): paired_estimate(pairs, k, bootstrap) for k in range(1, max_k + 1)}


def paired_estimate(pairs: Sequence[Pair], k: int, bootstrap: Bootstrap) -> PairedEstimate:
    """pass^k of both sides and B − A, its interval from resampling the usable pairs."""
    usable = [pair for pair in pairs if pair.a.trials >= k and pair.b.trials >= k]
    if not usable:
        return PairedEstimate(a=None, b=None, diff=None, ci_low=None, ci_high=None, tasks=0)
    a = [pass_hat_k(p.a.trials, p.a.successes, k) for p in usable]
    b = [pass_hat_k(p.b.trials, p.b.successes, k) for p in usable]
    diff = estimate([vb - va for va, vb in zip(a, b, strict=True)], bootstrap)
    return PairedEstimate(
        a=fmean(a), b=fmean(b), diff=diff.value, ci_low=diff.ci_low, ci_high=diff.ci_high, tasks=len(usable)
    )


def flip_sets(pairs: Sequence[Pair]) -> dict[str, FlipSets]:
    """Keys that flip each way under each definition of solved (pairs with a side lacking trials skipped)."""
    judged = [pair for pair in pairs if pair.a.trials and pair.b.trials]
    return {
        name: FlipSets(
            gained=[p.key for p in judged if solved(p.b) and not solved(p.a)],
            lost=[p.key for p in judged if solved(p.a) and not solved(p.b)],
        )
        for name, solved in SOLVED.items()
    }


def paired_breakdowns(
    pairs: Sequence[Pair], max_k: int, bootstrap: Bootstrap
) -> dict[str, list[PairedGroup]]:
    """Paired pass^k per group, for every standard grouping."""
    return {name: paired_breakdown(pairs, key, max_k, bootstrap) for name, key in GROUPINGS.items()}


def paired_breakdown(
    pairs: Sequence[Pair], key: Callable[[TaskOutcome], str], max_k: int, bootstrap: Bootstrap
) -> list[PairedGroup]:
    """Paired pass^k per group; a pair whose sides fall in different groups goes to the group `A → B`."""
    return [
        PairedGroup(key=label, tasks=len(group), pass_hat_k=paired_curve(group, max_k, bootstrap))
        for label, group in group_by(pairs, lambda pair: _pair_label(key(pair.a), key(pair.b)))
    ]


def _pair_label(a: str, b: str) -> str:
    return a if a == b else f"{a} → {b}"


def action_diffs(a: Sequence[ActionStat], b: Sequence[ActionStat]) -> list[ActionDiff]:
    """Performed rate of each expected action name in either run, and B − A."""
    rates_a = {stat.name: stat.performed_rate for stat in a}
    rates_b = {stat.name: stat.performed_rate for stat in b}
    diffs: list[ActionDiff] = []
    for name in sorted(rates_a.keys() | rates_b.keys()):
        ra, rb = rates_a.get(name), rates_b.get(name)
        diffs.append(ActionDiff(name=name, a=ra, b=rb, diff=None if ra is None or rb is None else rb - ra))
    return diffs
