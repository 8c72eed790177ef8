"""The pass^k estimator: the chance that k independent trials of a task all succeed, per task from its
counts of trials and successes, averaged over tasks with bootstrap intervals."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from math import prod

import numpy as np
import numpy.typing as npt

from tau2.metrics.bootstrap import NO_ESTIMATE, Bootstrap, Estimate, Floats, rate_estimates
from tau2.metrics.outcomes import TaskOutcome

Counts = npt.NDArray[np.int64]


@dataclass(frozen=True)
class TaskCounts:
    """What every pass^k statistic needs of a run: per task, its valid trials, its successes, and its
    missing trials (ended by an infrastructure error, so neither passed nor failed); one entry per task, in
    the same order in every array. pass^k reads only the valid trials; the missing ones bound it."""

    trials: Counts
    successes: Counts
    missing: Counts

    def __post_init__(self) -> None:
        shapes = {self.trials.shape, self.successes.shape, self.missing.shape}
        if len(shapes) != 1 or self.trials.ndim != 1:
            raise ValueError("trials, successes and missing must be one-dimensional and of the same length")
        if np.any(self.successes < 0) or np.any(self.successes > self.trials):
            raise ValueError("every task needs 0 <= successes <= trials")
        if np.any(self.missing < 0):
            raise ValueError("every task needs missing >= 0")

    @classmethod
    def of(cls, outcomes: Iterable[TaskOutcome]) -> TaskCounts:
        """The counts of per-task outcomes (their excluded simulations are the missing trials)."""
        rows = [(o.trials, o.successes, o.excluded) for o in outcomes]
        return cls.from_counts([n for n, _, _ in rows], [c for _, c, _ in rows], [m for _, _, m in rows])

    @classmethod
    def from_counts(
        cls, trials: Sequence[int], successes: Sequence[int], missing: Sequence[int] | None = None
    ) -> TaskCounts:
        """Counts given as sequences, one entry per task; no missing trials unless given."""
        return cls(
            np.asarray(trials, dtype=np.int64),
            np.asarray(successes, dtype=np.int64),
            np.zeros(len(trials), dtype=np.int64) if missing is None else np.asarray(missing, dtype=np.int64),
        )

    @property
    def planned(self) -> Counts:
        """Per task, the trials that have ended, valid or missing."""
        return self.trials + self.missing

    def __len__(self) -> int:
        return len(self.trials)


def pass_hat_k(trials: int, successes: int, k: int) -> float:
    """Unbiased per-task pass^k from `trials` valid trials with `successes`: C(c, k) / C(n, k), computed
    as the product of (c − i) / (n − i) for i < k."""
    if not 1 <= k <= trials or not 0 <= successes <= trials:
        raise ValueError(f"need 1 <= k <= trials and 0 <= successes <= trials: {k=}, {trials=}, {successes=}")
    return 0.0 if successes < k else prod((successes - i) / (trials - i) for i in range(k))


def pass_hat_k_table(counts: TaskCounts, max_k: int) -> Floats:
    """Per-task pass^k for k = 1..max_k, shape max_k × tasks (row k − 1), NaN where a task has fewer than
    k trials. Each row follows from the one before by one factor, so the table costs O(max_k) per task."""
    steps = np.arange(max_k, dtype=np.float64)[:, None]
    trials = counts.trials.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        factors: Floats = np.maximum(counts.successes - steps, 0.0) / (trials - steps)
        table = factors.cumprod(axis=0)
    table[steps >= trials] = np.nan
    return table


def pass_hat_k_values(outcomes: Sequence[TaskOutcome], k: int) -> list[float]:
    """Per-task pass^k of the tasks with at least k valid trials (the others cannot estimate it)."""
    return [pass_hat_k(o.trials, o.successes, k) for o in outcomes if o.trials >= k]


def pass_hat_k_curve(
    outcomes: Sequence[TaskOutcome], max_k: int, bootstrap: Bootstrap
) -> dict[str, Estimate]:
    """pass^k averaged over tasks for k = 1..max_k, with intervals, keyed by k as a string."""
    return pass_hat_k_estimates(TaskCounts.of(outcomes), max_k, bootstrap)


def pass_hat_k_estimates(counts: TaskCounts, max_k: int, bootstrap: Bootstrap) -> dict[str, Estimate]:
    """pass^k for k = 1..max_k over the tasks with at least k trials, each with its interval (the
    bootstrap over those tasks widened to the Wilson score interval), keyed by k as a string."""
    table = pass_hat_k_table(counts, max_k)
    curve: dict[str, Estimate] = {}
    for ks, usable in usable_tasks(counts.trials, max_k):
        values = table[ks.start - 1 : ks.stop - 1, usable]
        estimates = rate_estimates(values, bootstrap) if usable.any() else [NO_ESTIMATE] * len(ks)
        curve.update((str(k), e) for k, e in zip(ks, estimates, strict=True))
    return curve


def usable_tasks(trials: Counts, max_k: int) -> Iterator[tuple[range, npt.NDArray[np.bool_]]]:
    """The values of k = 1..max_k grouped by the tasks that can estimate them (those with at least k
    trials), with each group's mask of tasks. The sets shrink as k grows, so the number of tasks
    names a set, and a run whose tasks all have the same number of trials is one group."""
    ks = np.arange(1, max_k + 1)
    usable = len(trials) - np.searchsorted(np.sort(trials), ks)
    starts = [int(k) for k in np.flatnonzero(np.diff(usable, prepend=-1)) + 1]
    for first, stop in zip(starts, [*starts[1:], max_k + 1], strict=True):
        yield range(first, stop), trials >= first
