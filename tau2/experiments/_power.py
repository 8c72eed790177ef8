"""How many trials per task an experiment needs: the power of the exact McNemar test on paired (task, trial)
outcomes, for an arm whose pass^1 differs from the baseline's by a chosen Δ, and the fewest trials per task
that reach a chosen power.

The model: task i passes in the baseline with probability pᵢ (from a pilot run's per-task rates, or one
stated rate for every task) and in the arm with qᵢ; each unit's two outcomes are independent given the
task. The arm changes every task's rate in the same proportion, so the mean difference is exactly Δ and no
rate leaves [0, 1]: a loss scales every success rate by 1 + Δ/p̄, a gain every failure rate by
1 − Δ/(1 − p̄). A unit is discordant with probability ψᵢ = pᵢ(1 − qᵢ) + qᵢ(1 − pᵢ); over N = tasks × trials
units the discordant ones D are taken as binomial(N, ψ̄), and of those the ones that flip to pass as
binomial(D, π) with π = mean of qᵢ(1 − pᵢ) over ψ̄. The power is the chance that the exact two-sided test
rejects at α: Σ_d P(D = d) · P(B ≤ c_d or B ≥ d − c_d), c_d the largest count whose two-sided p-value is at
most α."""

from __future__ import annotations

from collections.abc import Sequence
from math import log, sqrt

import numpy as np

from tau2.metrics.bootstrap import Floats

_SPREAD = 9.0
"""Discordant counts within this many standard deviations of their mean are summed over (the rest of the
binomial's mass is below 1e-18)."""


def arm_rates(rates: Sequence[float] | Floats, delta: float) -> Floats | None:
    """The arm's per-task rates under the proportional model, or None when the rates cannot move by Δ on
    average (a loss larger than the mean rate, a gain larger than the mean failure rate)."""
    p = np.asarray(rates, dtype=np.float64)
    mean = float(p.mean())
    if delta < 0:
        return None if -delta > mean else p * (1.0 + delta / mean)
    if delta > 0:
        return None if delta > 1.0 - mean else 1.0 - (1.0 - p) * (1.0 - delta / (1.0 - mean))
    return p.copy()


def mcnemar_power(
    rates: Sequence[float] | Floats, tasks: int, trials: int, delta: float, alpha: float
) -> float:
    """The power of the exact McNemar test at level `alpha` on `tasks` × `trials` paired units when the
    baseline's per-task rates are distributed as `rates` and the arm's pass^1 differs by `delta` (the
    module's model); 0 when the rates cannot move by `delta`."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha lies strictly between 0 and 1: {alpha}")
    p = np.asarray(rates, dtype=np.float64)
    q = arm_rates(p, delta)
    if q is None or tasks < 1 or trials < 1:
        return 0.0
    discordant = p * (1.0 - q) + q * (1.0 - p)
    psi = float(discordant.mean())
    if psi <= 0.0:
        return 0.0
    to_pass = float((q * (1.0 - p)).mean()) / psi
    units = tasks * trials
    log_factorials = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, units + 1, dtype=np.float64)))])
    mean, sd = units * psi, sqrt(units * psi * (1.0 - psi))
    low, high = max(0, int(mean - _SPREAD * sd) - 1), min(units, int(mean + _SPREAD * sd) + 1)
    counts = np.arange(low, high + 1)
    weights = np.exp(_log_binomial(log_factorials, units, counts, psi))
    power = 0.0
    for d, weight in zip(counts.tolist(), weights.tolist(), strict=True):
        if weight < 1e-18 or d == 0:
            continue
        critical = _critical(log_factorials, d, alpha)
        if critical < 0:
            continue
        flips = np.exp(_log_binomial(log_factorials, d, np.arange(d + 1), to_pass))
        power += weight * float(flips[: critical + 1].sum() + flips[d - critical :].sum())
    return min(1.0, power)


def trials_needed(
    rates: Sequence[float] | Floats, tasks: int, delta: float, power: float, alpha: float, max_trials: int
) -> int | None:
    """The fewest trials per task at which `mcnemar_power` reaches `power` (searched by doubling, then
    bisection); None when `max_trials` do not reach it."""
    if not 0.0 < power < 1.0:
        raise ValueError(f"power lies strictly between 0 and 1: {power}")

    def enough(trials: int) -> bool:
        return mcnemar_power(rates, tasks, trials, delta, alpha) >= power

    high = 1
    while not enough(high):
        if high >= max_trials:
            return None
        high = min(2 * high, max_trials)
    low = high // 2  # not enough (or 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def _critical(log_factorials: Floats, discordant: int, alpha: float) -> int:
    """The largest c with 2 · P(binomial(d, ½) ≤ c) ≤ alpha (−1 when even c = 0 is not rejected)."""
    lower = np.arange(discordant // 2 + 1)
    cumulative = np.cumsum(np.exp(_log_binomial(log_factorials, discordant, lower, 0.5)))
    return int(np.searchsorted(2.0 * cumulative, alpha, side="right")) - 1


def _log_binomial(log_factorials: Floats, n: int, k: np.ndarray, p: float) -> Floats:
    """log P(binomial(n, p) = k), elementwise, from a table of log k! (k ≤ n); 0 · log 0 is taken as 0."""
    log_choose = log_factorials[n] - log_factorials[k] - log_factorials[n - k]
    successes = k * log(p) if p > 0 else np.where(k > 0, -np.inf, 0.0)
    failures = (n - k) * log(1.0 - p) if p < 1 else np.where(n - k > 0, -np.inf, 0.0)
    return np.asarray(log_choose + successes + failures, dtype=np.float64)
