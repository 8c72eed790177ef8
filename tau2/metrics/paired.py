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
from tau2.metrics.bootstrap import Bootstrap, estimate
from tau2.metrics.breakdown import GROUPINGS, group_by
from tau2.metrics.effort import EffortPair, RecordPair, TaskEffort, task_efforts
from tau2.metrics.outcomes import TaskOutcome
from tau2.metrics.paired_stats import PairedEstimate, paired_pass_hat_k
from tau2.metrics.passk import TaskCounts
from tau2.world import Side

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
    """How often an expected action was performed in A and in B (per-task shares averaged over tasks), and
    the paired difference over the tasks expecting it in both runs."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: Side
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    tasks: int = 0


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
    a, b = TaskCounts.of(pair.a for pair in pairs), TaskCounts.of(pair.b for pair in pairs)
    return paired_pass_hat_k(a, b, max_k, bootstrap)


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
    return {name: paired_breakdown(pairs, keys, max_k, bootstrap) for name, keys in GROUPINGS.items()}


def paired_breakdown(
    pairs: Sequence[Pair], keys: Callable[[TaskOutcome], list[str]], max_k: int, bootstrap: Bootstrap
) -> list[PairedGroup]:
    """Paired pass^k per group; a pair whose sides fall in different groups goes to the group `A → B`."""
    return [
        PairedGroup(key=label, tasks=len(group), pass_hat_k=paired_curve(group, max_k, bootstrap))
        for label, group in paired_groups(pairs, keys)
    ]


def paired_groups(
    pairs: Sequence[Pair], keys: Callable[[TaskOutcome], list[str]]
) -> list[tuple[str, list[Pair]]]:
    """The pairs grouped as `paired_breakdown` groups them, each group with its pairs."""
    return group_by(pairs, lambda pair: _pair_labels(keys(pair.a), keys(pair.b)))


def _pair_labels(a: list[str], b: list[str]) -> list[str]:
    return a if a == b else [f"{'+'.join(a)} → {'+'.join(b)}"]


Shares = dict[str, tuple[Side, float]]
"""Per expected action name: its seat (as first seen) and the share of its expected occurrences performed."""


def action_diffs(pairs: Sequence[RecordPair], bootstrap: Bootstrap) -> list[ActionDiff]:
    """Per expected action name, grouped by seat (agent first): the share of its expected occurrences
    performed in A and B, and B − A with an interval resampled over the tasks expecting it on both sides."""
    return task_action_diffs(task_efforts(pairs), bootstrap)


def task_action_diffs(pairs: Sequence[EffortPair], bootstrap: Bootstrap) -> list[ActionDiff]:
    """`action_diffs` from the tasks' efforts."""
    shares = [(_performed_shares(a), _performed_shares(b)) for a, b in pairs]
    sides: dict[str, Side] = {}
    for a, b in shares:
        for name, (side, _) in (*a.items(), *b.items()):
            sides.setdefault(name, side)
    order = sorted(sides, key=lambda name: (list(Side).index(sides[name]), name))
    return [_action_diff(shares, name, sides[name], bootstrap) for name in order]


def _action_diff(
    shares: Sequence[tuple[Shares, Shares]], name: str, side: Side, bootstrap: Bootstrap
) -> ActionDiff:
    ra = [a[name][1] for a, _ in shares if name in a]
    rb = [b[name][1] for _, b in shares if name in b]
    both = [(a[name][1], b[name][1]) for a, b in shares if name in a and name in b]
    diff = estimate([pb - pa for pa, pb in both], bootstrap)
    return ActionDiff(
        name=name,
        side=side,
        a=fmean(ra) if ra else None,
        b=fmean(rb) if rb else None,
        diff=diff.value,
        ci_low=diff.ci_low,
        ci_high=diff.ci_high,
        tasks=len(both),
    )


def _performed_shares(effort: TaskEffort) -> Shares:
    """Per action name expected in a task's records, the share of its expected occurrences performed."""
    return {
        name: (side, performed / expected) for name, (side, performed, expected) in effort.actions.items()
    }
