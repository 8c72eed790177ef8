"""Missing trials (infrastructure errors) kept in view: how many there are, the tasks none of whose trials
is valid, and how far pass^k could move had every missing trial passed or failed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from tau2.metrics.outcomes import TaskOutcome
from tau2.metrics.passk import TaskCounts, pass_hat_k_table


class PassKBounds(BaseModel):
    """pass^k over the tasks with at least k ended trials (valid or missing), had every missing trial failed
    (`low`) or passed (`high`); None when no task has k ended trials."""

    model_config = ConfigDict(frozen=True)

    low: float | None
    high: float | None
    tasks: int


class MissingSummary(BaseModel):
    """What infrastructure errors took from a run: the missing trials, the tasks they touch, the tasks left
    with no valid trial at all (listed by id, never dropped), and the bounds of pass^k they leave open."""

    model_config = ConfigDict(frozen=True)

    trials: int
    tasks: int
    all_missing: list[str]
    bounds: dict[str, PassKBounds]


def pass_hat_k_bounds(counts: TaskCounts, max_k: int) -> dict[str, PassKBounds]:
    """The bounds of pass^k for k = 1..max_k, keyed by k as a string. Each missing trial is counted as a
    failure (`low`) or a success (`high`) and pass^k is averaged over the tasks with at least k ended trials:
    a task whose every trial is missing counts 0 in `low` and 1 in `high`."""
    ended = counts.planned
    low = pass_hat_k_table(TaskCounts(ended, counts.successes, np.zeros_like(ended)), max_k)
    high = pass_hat_k_table(TaskCounts(ended, counts.successes + counts.missing, np.zeros_like(ended)), max_k)
    bounds: dict[str, PassKBounds] = {}
    for k in range(1, max_k + 1):
        usable = ended >= k
        tasks = int(usable.sum())
        if tasks:
            bounds[str(k)] = PassKBounds(
                low=float(low[k - 1, usable].mean()), high=float(high[k - 1, usable].mean()), tasks=tasks
            )
        else:
            bounds[str(k)] = PassKBounds(low=None, high=None, tasks=0)
    return bounds


def missing_summary(outcomes: Sequence[TaskOutcome], max_k: int) -> MissingSummary:
    """The missing trials of a run's per-task outcomes and the bounds of pass^k for k = 1..max_k."""
    return MissingSummary(
        trials=sum(o.excluded for o in outcomes),
        tasks=sum(o.excluded > 0 for o in outcomes),
        all_missing=[o.task_id for o in outcomes if o.excluded and not o.trials],
        bounds=pass_hat_k_bounds(TaskCounts.of(outcomes), max_k),
    )
