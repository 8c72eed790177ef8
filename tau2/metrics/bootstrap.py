"""Intervals for a mean over tasks: the percentile bootstrap (resampling tasks with replacement, vectorised
with numpy), kept from collapsing at 0 and 1 by the Wilson score interval, and Newcombe's interval for
differences."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from math import sqrt
from statistics import NormalDist
from typing import Final

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

MAX_SAMPLES = 100_000
"""The most resamples an interval takes: a hundred times the default, beyond any use (intervals settle
long before). Time grows linearly with it, so a typo like 10**9 would otherwise run for days."""

Floats = npt.NDArray[np.float64]

_TASKS_PER_LEVEL: Final = 60
"""A row with at least this many tasks per distinct value is resampled by counting values (see
`resampled_means`): a multinomial category costs about as much as gathering 60 tasks' values (measured on
reports of 2,000 tasks with 5 and 50 trials)."""
_BLOCK_VALUES: Final = 1 << 20
"""Most resampled values held at once (8 MB of draws, 8 MB of values): resamples are drawn and averaged in
blocks, so memory stays bounded whatever the number of tasks and resamples."""


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


NO_ESTIMATE: Final = Estimate(value=None, ci_low=None, ci_high=None, tasks=0)


def estimate(values: Sequence[float] | Floats, bootstrap: Bootstrap) -> Estimate:
    """The mean of per-task `values` and its percentile interval (for values of any range)."""
    array = np.asarray(values, dtype=np.float64)
    if not array.size:
        return NO_ESTIMATE
    (low,), (high,) = intervals(array.reshape(1, -1), bootstrap)
    return Estimate(value=float(array.mean()), ci_low=float(low), ci_high=float(high), tasks=array.size)


def rate_estimate(values: Sequence[float], bootstrap: Bootstrap) -> Estimate:
    """The mean of per-task rates in [0, 1]; its interval spans both the bootstrap and the Wilson score
    interval over the tasks, so all-pass or all-fail runs do not read as certainty."""
    if not values:
        return NO_ESTIMATE
    return rate_estimates(np.asarray(values, dtype=np.float64).reshape(1, -1), bootstrap)[0]


def rate_estimates(rates: Floats, bootstrap: Bootstrap) -> list[Estimate]:
    """`rate_estimate` of every row of `rates` (rows: series over the same tasks, columns: tasks)."""
    lows, highs = intervals(rates, bootstrap)
    return [
        widened(float(value), float(low), float(high), rates.shape[1], bootstrap.level)
        for value, low, high in zip(rates.mean(axis=1), lows, highs, strict=True)
    ]


def widened(value: float, low: float, high: float, tasks: int, level: float) -> Estimate:
    """A rate's estimate with its bootstrap interval widened to span the Wilson score interval."""
    wilson_low, wilson_high = wilson(value, tasks, level)
    return Estimate(value=value, ci_low=min(low, wilson_low), ci_high=max(high, wilson_high), tasks=tasks)


def intervals(values: Floats, bootstrap: Bootstrap) -> tuple[Floats, Floats]:
    """Percentile interval of the mean of each row of `values` over `bootstrap.samples` resamples of its
    columns (tasks), with linear interpolation between order statistics."""
    tail = (1.0 - bootstrap.level) / 2
    lows, highs = np.quantile(resampled_means(values, bootstrap), [tail, 1.0 - tail], axis=1)
    return lows, highs


def ratio_interval(
    numerators: Sequence[float] | Floats, denominators: Sequence[float] | Floats, bootstrap: Bootstrap
) -> tuple[float, float]:
    """Percentile interval of Σ numerators ÷ Σ denominators (one entry per task, every denominator
    positive) over `bootstrap.samples` resamples of the tasks with replacement: the interval of a ratio such
    as the cost per simulation, where tasks may have run different numbers of simulations."""
    top = np.asarray(numerators, dtype=np.float64)
    bottom = np.asarray(denominators, dtype=np.float64)
    ratios = np.empty(bootstrap.samples)
    for start, drawn in _draws(bootstrap.seed, top.size, bootstrap.samples):
        ratios[start : start + len(drawn)] = top.take(drawn).sum(axis=1) / bottom.take(drawn).sum(axis=1)
    tail = (1.0 - bootstrap.level) / 2
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return float(low), float(high)


def resampled_means(values: Floats, bootstrap: Bootstrap) -> Floats:
    """Means of each row of `values` (rows × tasks) over `bootstrap.samples` resamples of the tasks with
    replacement, shape rows × samples. A row's means depend only on the seed, the samples and the row:
    the same seed gives the same intervals for a series whatever other series are computed beside it.

    A row with few distinct values (at least `_TASKS_PER_LEVEL` tasks each) is resampled as how many tasks
    of each value a resample holds, one multinomial draw per resample (exactly how often resampling the
    tasks picks each value), at a cost that grows with its distinct values instead of its tasks; the other
    rows gather the drawn tasks' values, from draws that depend only on the seed, tasks and samples."""
    rows, tasks = values.shape
    means = np.empty((rows, bootstrap.samples))
    drawn_rows = []
    for row in range(rows):
        levels, counts = np.unique(values[row], return_counts=True)
        if len(levels) * _TASKS_PER_LEVEL <= tasks:
            rng = np.random.default_rng(_entropy(bootstrap.seed))
            held = rng.multinomial(tasks, counts / tasks, size=bootstrap.samples)
            means[row] = (held @ levels) / tasks
        else:
            drawn_rows.append(row)
    if drawn_rows:
        for start, drawn in _draws(bootstrap.seed, tasks, bootstrap.samples):
            for row in drawn_rows:
                means[row, start : start + len(drawn)] = values[row].take(drawn).mean(axis=1)
    return means


def _draws(seed: int, tasks: int, samples: int) -> Iterator[tuple[int, npt.NDArray[np.int64]]]:
    """The resamples' draws of tasks, in blocks of at most `_BLOCK_VALUES` (each with the number of its
    first resample). Draws that fit one block are kept for the next series over as many tasks: a report
    resamples the same tasks for many series (every k, every check), and drawing is a third of the cost."""
    if samples * tasks <= _BLOCK_VALUES:
        yield 0, _single_block(seed, tasks, samples)
        return
    rng = np.random.default_rng(_entropy(seed))
    block = max(1, _BLOCK_VALUES // tasks)
    for start in range(0, samples, block):
        yield start, rng.integers(0, tasks, size=(min(block, samples - start), tasks))


@lru_cache(maxsize=4)
def _single_block(seed: int, tasks: int, samples: int) -> npt.NDArray[np.int64]:
    """All the draws of `samples` resamples of `tasks` tasks, as the first block would draw them (read-only:
    shared by every caller)."""
    drawn = np.random.default_rng(_entropy(seed)).integers(0, tasks, size=(samples, tasks))
    drawn.flags.writeable = False
    return drawn


def _entropy(seed: int) -> list[int]:
    """numpy's seed entropy for any integer seed (it takes non-negative ones only)."""
    return [abs(seed), int(seed < 0)]


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
