"""Percentile bootstrap intervals for a mean over tasks, resampling tasks with replacement."""

from __future__ import annotations

import random
from collections.abc import Sequence
from statistics import fmean

from pydantic import BaseModel, ConfigDict, Field


class Bootstrap(BaseModel):
    """How intervals are computed: resamples, the seed that makes them reproducible, and the level."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(default=1000, ge=1)
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
    """The mean of per-task `values` and its percentile interval."""
    if not values:
        return Estimate(value=None, ci_low=None, ci_high=None, tasks=0)
    low, high = interval(values, bootstrap)
    return Estimate(value=fmean(values), ci_low=low, ci_high=high, tasks=len(values))


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
