"""Intervals for a mean over tasks: the percentile bootstrap (resampling tasks with replacement), kept from
collapsing at 0 and 1 by the Wilson score interval, and Newcombe's interval for differences."""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import sqrt
from statistics import NormalDist, fmean

from pydantic import BaseModel, ConfigDict, Field

MAX_SAMPLES = 100_000
"""The most resamples an interval takes: a hundred times the default, beyond any use (intervals settle
long before). Time grows linearly with it, so a typo like 10**9 would otherwise run for days."""


class Bootstrap(BaseModel):
    """How intervals are computed: resamples, the seed that makes them reproducible, and the level."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(default=1000, ge=1, le=MAX_SAMPLES)
    seed: int = 0
    level: float = Field(default=0.95, gt=0.0, lt=1.0)


class Estimate(BaseModel):
    """A mean over tasks with its bootstrap interval; all None when no task qualified."""

    model_config = ConfigDict(frozen=True)

    value: float | None
    ci_low: float | None
    ci_high: float | None
    tasks: int


def estimate(values: Sequence[float], bootstrap: Bootstrap) -> Estimate:
    """The mean of per-task `values` and its percentile interval (for values of any range)."""
    if not values:
        return Estimate(value=None, ci_low=None, ci_high=None, tasks=0)
    low, high = interval(values, bootstrap)
    return Estimate(value=fmean(values), ci_low=low, ci_high=high, tasks=len(values))


def rate_estimate(values: Sequence[float], bootstrap: Bootstrap) -> Estimate:
    """The mean of per-task rates in [0, 1]; its interval spans both the bootstrap and the Wilson score
    interval over the tasks, so all-pass or all-fail runs do not read as certainty."""
    e = estimate(values, bootstrap)
    if e.value is None or e.ci_low is None or e.ci_high is None:
        return e
    low, high = wilson(e.value, e.tasks, bootstrap.level)
    return e.model_copy(update={"ci_low": min(e.ci_low, low), "ci_high": max(e.ci_high, high)})


def wilson(rate: float, n: int, level: float) -> tuple[float, float]:
    """Wilson score interval of a proportion `rate` observed over `n` units."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(a: float, b: float, n: int, level: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of `b − a` from the two Wilson intervals (ignores pairing)."""
    low_a, high_a = wilson(a, n, level)
    low_b, high_b = wilson(b, n, level)
    diff = b - a
    return (
        diff - sqrt((b - low_b) ** 2 + (high_a - a) ** 2),
        diff + sqrt((high_b - b) ** 2 + (a - low_a) ** 2),
    )


def interval(values: Sequence[float], bootstrap: Bootstrap) -> tuple[float, float]:
    """Percentile interval of the mean over `bootstrap.samples` resamples of `values` (seeded)."""
    rng = random.Random(bootstrap.seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(bootstrap.samples))
    tail = (1.0 - bootstrap.level) / 2
    return quantile(means, tail), quantile(means, 1.0 - tail)


def quantile(ordered: Sequence[float], q: float) -> float:
    """Linearly interpolated quantile `q` of an ascending, non-empty sequence."""
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    low, high = ordered[below], ordered[above]
    return min(high, max(low, low + (high - low) * (position - below)))
