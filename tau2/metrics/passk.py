"""The pass^k estimator: the chance that k independent trials of a task all succeed."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from tau2.metrics.bootstrap import Bootstrap, Estimate, rate_estimate
from tau2.metrics.outcomes import TaskOutcome


def pass_hat_k(trials: int, successes: int, k: int) -> float:
    """Unbiased per-task pass^k from `trials` valid trials with `successes`: C(c, k) / C(n, k)."""
    if not 1 <= k <= trials or not 0 <= successes <= trials:
        raise ValueError(f"need 1 <= k <= trials and 0 <= successes <= trials: {k=}, {trials=}, {successes=}")
    return comb(successes, k) / comb(trials, k)


def pass_hat_k_values(outcomes: Sequence[TaskOutcome], k: int) -> list[float]:
    """Per-task pass^k of the tasks with at least k valid trials (the others cannot estimate it)."""
    return [pass_hat_k(o.trials, o.successes, k) for o in outcomes if o.trials >= k]


def pass_hat_k_curve(
    outcomes: Sequence[TaskOutcome], max_k: int, bootstrap: Bootstrap
) -> dict[str, Estimate]:
    """pass^k averaged over tasks for k = 1..max_k, with intervals, keyed by k as a string."""
    return {str(k): rate_estimate(pass_hat_k_values(outcomes, k), bootstrap) for k in range(1, max_k + 1)}
