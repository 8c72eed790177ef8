"""Paired statistics of two runs over the same tasks: each side's pass^k and B − A, with intervals from
one paired bootstrap over tasks, computed from per-task counts of trials and successes alone."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from tau2.metrics.bootstrap import Bootstrap, Floats, intervals, newcombe, widened
from tau2.metrics.passk import TaskCounts, pass_hat_k_table, usable_tasks


class PairedEstimate(BaseModel):
    """pass^k of A and of B over the tasks both can estimate, and B − A with its paired interval."""

    model_config = ConfigDict(frozen=True)

    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    tasks: int
    a_low: float | None = None
    a_high: float | None = None
    b_low: float | None = None
    b_high: float | None = None
    """Each side's own interval over the same tasks (as in a single-run report)."""


NO_PAIRED_ESTIMATE = PairedEstimate(a=None, b=None, diff=None, ci_low=None, ci_high=None, tasks=0)


def paired_pass_hat_k(
    a: TaskCounts, b: TaskCounts, max_k: int, bootstrap: Bootstrap
) -> dict[str, PairedEstimate]:
    """Paired pass^k for k = 1..max_k, keyed by k as a string; entry i of `a` and of `b` is the same task
    in run A and in run B, and at each k only the tasks with at least k trials on both sides count."""
    if len(a) != len(b):
        raise ValueError(f"paired counts need as many tasks on both sides: {len(a)} and {len(b)}")
    table_a, table_b = pass_hat_k_table(a, max_k), pass_hat_k_table(b, max_k)
    curve: dict[str, PairedEstimate] = {}
    for ks, usable in usable_tasks(np.minimum(a.trials, b.trials), max_k):
        rows = slice(ks.start - 1, ks.stop - 1)
        if usable.any():
            estimates = paired_rates(table_a[rows, usable], table_b[rows, usable], bootstrap)
        else:
            estimates = [NO_PAIRED_ESTIMATE] * len(ks)
        curve.update((str(k), e) for k, e in zip(ks, estimates, strict=True))
    return curve


def paired_rates(a: Floats, b: Floats, bootstrap: Bootstrap) -> list[PairedEstimate]:
    """Per row of `a` and `b` (series of per-task rates over the same tasks, column i the same task in
    both): the mean of A and of B, each with its own interval (bootstrap widened to Wilson's), and the mean
    of B − A with its paired bootstrap interval (the per-task differences resampled over tasks).
    When the difference does not vary across resamples (e.g. both runs pass every task), its interval is
    Newcombe's, so it never reads as certainty."""
    rows, tasks = a.shape
    lows, highs = intervals(np.vstack([a, b, b - a]), bootstrap)
    means_a, means_b, diffs = a.mean(axis=1), b.mean(axis=1), (b - a).mean(axis=1)
    estimates = []
    for row in range(rows):
        mean_a, mean_b = float(means_a[row]), float(means_b[row])
        side_a = widened(mean_a, float(lows[row]), float(highs[row]), tasks, bootstrap.level)
        side_b = widened(mean_b, float(lows[rows + row]), float(highs[rows + row]), tasks, bootstrap.level)
        low, high = float(lows[2 * rows + row]), float(highs[2 * rows + row])
        if low == high:
            low, high = newcombe(mean_a, mean_b, tasks, bootstrap.level)
        estimates.append(
            PairedEstimate(
                a=mean_a,
                b=mean_b,
                diff=float(diffs[row]),
                ci_low=low,
                ci_high=high,
                tasks=tasks,
                a_low=side_a.ci_low,
                a_high=side_a.ci_high,
                b_low=side_b.ci_low,
                b_high=side_b.ci_high,
            )
        )
    return estimates
