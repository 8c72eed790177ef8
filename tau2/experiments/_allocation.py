"""Adaptive trials: after an initial round of every task in every arm, the next trials go to the tasks whose
paired outcome is most uncertain, until each arm's Δpass^1 interval is as narrow as asked or the budget is
spent. Every choice gives a task one more trial in every arm, so arms stay paired."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Final

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tau2.metrics.bootstrap import Bootstrap, Floats
from tau2.metrics.paired_stats import paired_pass_hat_k
from tau2.metrics.passk import Counts, TaskCounts

PRIOR: Final = 0.25
"""The Beta(a, a) prior on a task's success rate that scores uncertainty. Most tasks of τ²-bench-like suites
always or never succeed, and a prior with its weight near 0 and 1 lets agreeing trials say so early."""


INTERVALS: Final = Bootstrap()
"""The intervals whose half widths are checked against the target, unless the experiment sets its own."""


class Budget(BaseModel):
    """What an adaptive experiment may spend: a cap on simulations (all arms, missing ones included), and
    optionally the half width of every arm's Δpass^1 interval at which it stops early."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_simulations: int = Field(ge=1)
    target_half_width: float | None = Field(default=None, gt=0.0, lt=1.0)
    initial_trials: int = Field(default=2, ge=1)
    """Trials of every task in every arm before any is allocated by uncertainty."""


class StopReason(StrEnum):
    """Why no further trial is needed: every interval is narrow enough, the budget cannot pay a round, or
    every task has the most trials allowed (`max_trials`)."""

    TARGET = "target"
    BUDGET = "budget"
    TRIALS = "trials"


class Allocation(BaseModel):
    """The next round: the tasks that get one more trial in every arm (most useful first), or why none."""

    model_config = ConfigDict(frozen=True)

    tasks: list[int]
    stop: StopReason | None
    simulations: int
    """Simulations so far, over all arms."""
    half_widths: list[float | None]
    """Per arm after the baseline, the half width of its Δpass^1 interval so far (None without tasks)."""


def allocate(
    arms: Sequence[TaskCounts],
    budget: Budget,
    *,
    round_size: int,
    seed: int = 0,
    bootstrap: Bootstrap = INTERVALS,
    prior: float = PRIOR,
    max_trials: int | None = None,
) -> Allocation:
    """The next round of an experiment whose per-task counts so far are `arms` (the baseline first, entry i
    the same task in every arm, every task with as many ended trials in every arm). The initial round comes
    first, trial by trial across tasks; then tasks are ranked by how much one more paired trial would narrow
    the intervals still wider than the target, ties broken by an order drawn from `seed`. A task with
    `max_trials` ended trials gets no more."""
    if round_size < 1 or prior <= 0:
        raise ValueError(f"round_size must be at least 1 and prior positive: {round_size=}, {prior=}")
    ended = _paired_trials(arms)
    simulations = int(ended.sum()) * len(arms)
    half_widths = [_half_width(arms[0], arm, bootstrap) for arm in arms[1:]]
    affordable = (budget.max_simulations - simulations) // len(arms)
    if affordable < 1:
        return Allocation(tasks=[], stop=StopReason.BUDGET, simulations=simulations, half_widths=half_widths)
    size = min(round_size, affordable)
    initial = budget.initial_trials if max_trials is None else min(budget.initial_trials, max_trials)
    open_tasks = ended < (np.inf if max_trials is None else max_trials)
    if np.any(ended < initial):
        order = np.lexsort((np.arange(len(ended)), ended))
        chosen = [int(task) for task in order if ended[task] < initial][:size]
        return Allocation(tasks=chosen, stop=None, simulations=simulations, half_widths=half_widths)
    target = budget.target_half_width
    wide = [i for i, half in enumerate(half_widths) if target is None or half is None or half > target]
    if not wide:
        return Allocation(tasks=[], stop=StopReason.TARGET, simulations=simulations, half_widths=half_widths)
    if not np.any(open_tasks):
        return Allocation(tasks=[], stop=StopReason.TRIALS, simulations=simulations, half_widths=half_widths)
    score = np.sum([_narrowing(arms[0], prior) + _narrowing(arms[i + 1], prior) for i in wide], axis=0)
    ties = np.random.default_rng(seed).permutation(len(ended))
    ranked = ties[np.argsort(-score[ties], kind="stable")]
    chosen = [int(task) for task in ranked if open_tasks[task]][:size]
    return Allocation(tasks=chosen, stop=None, simulations=simulations, half_widths=half_widths)


def _paired_trials(arms: Sequence[TaskCounts]) -> Counts:
    """Per task, its ended trials, which pairing makes the same in every arm."""
    if len(arms) < 2:
        raise ValueError("an experiment needs a baseline and at least one other arm")
    ended = arms[0].planned
    if not len(ended):
        raise ValueError("an experiment needs at least one task")
    for index, arm in enumerate(arms[1:], start=1):
        if len(arm) != len(ended):
            raise ValueError(f"arm {index} has {len(arm)} tasks, the baseline {len(ended)}")
        unpaired = np.flatnonzero(arm.planned != ended)
        if unpaired.size:
            task = int(unpaired[0])
            raise ValueError(
                f"arms are not paired: task {task} has {int(ended[task])} ended trials in the baseline "
                f"and {int(arm.planned[task])} in arm {index}; finish the round first"
            )
    return ended


def _half_width(baseline: TaskCounts, arm: TaskCounts, bootstrap: Bootstrap) -> float | None:
    """Half the width of the arm's paired Δpass^1 interval against the baseline."""
    estimate = paired_pass_hat_k(baseline, arm, 1, bootstrap)["1"]
    if estimate.ci_low is None or estimate.ci_high is None:
        return None
    return (estimate.ci_high - estimate.ci_low) / 2


def _narrowing(counts: TaskCounts, prior: float) -> Floats:
    """Per task, how much one more trial shrinks the variance of its pass^1 estimate: v/n − v/(n + 1), with v
    the posterior mean of p(1 − p) under a Beta(prior, prior) prior (a task with no valid trial counts as
    having one)."""
    alpha = counts.successes + prior
    beta = counts.trials - counts.successes + prior
    variance = alpha * beta / ((alpha + beta) * (alpha + beta + 1))
    trials = np.maximum(counts.trials, 1).astype(np.float64)
    narrowing: Floats = variance / (trials * (trials + 1))
    return narrowing
