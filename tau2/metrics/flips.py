"""Flip rate: how often a task's trials disagree with each other."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.metrics.outcomes import TaskOutcome


class FlipSummary(BaseModel):
    """Tasks with at least two valid trials, how many of them both passed and failed, and the fraction."""

    model_config = ConfigDict(frozen=True)

    tasks: int
    flipping: int
    rate: float | None


def flip_summary(outcomes: Sequence[TaskOutcome]) -> FlipSummary:
    """The fraction of tasks (with two or more valid trials) whose trials disagree."""
    eligible = [o for o in outcomes if o.trials >= 2]
    flipping = sum(0 < o.successes < o.trials for o in eligible)
    return FlipSummary(
        tasks=len(eligible), flipping=flipping, rate=flipping / len(eligible) if eligible else None
    )
