"""Breakdowns: pass^k within groups of tasks sharing an intent, a fault, a number of subtasks, fix or
transfer, a persona or a mode."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

from pydantic import BaseModel, ConfigDict

from tau2.metrics.bootstrap import Bootstrap, Estimate
from tau2.metrics.outcomes import TaskOutcome
from tau2.metrics.passk import pass_hat_k_curve
from tau2.metrics.retrieval import recall_group

T = TypeVar("T")

MISSING: Final = "(none)"
"""Group label of tasks without the attribute (e.g. no intent)."""

GROUPINGS: Final[dict[str, Callable[[TaskOutcome], list[str]]]] = {
    "intent": lambda o: [o.intent or MISSING],
    "fault": lambda o: o.faults or [MISSING],
    "subtasks": lambda o: [str(o.subtasks)],
    "resolution": lambda o: ["transfer" if o.expects_transfer else "fix"],
    "persona": lambda o: [o.persona or MISSING],
    "mode": lambda o: [o.mode],
}
"""The breakdowns every report shows, by name; a task belongs to every group its key lists (a task
composed of two faults counts in both fault groups)."""


def retrieval_group(outcome: TaskOutcome) -> list[str]:
    """The breakdown of runs on a knowledge base: tasks by how many of their required documents were seen."""
    return [recall_group(outcome.recall) or MISSING]


class GroupStat(BaseModel):
    """pass^k within one group of tasks."""

    model_config = ConfigDict(frozen=True)

    key: str
    tasks: int
    trials: int
    successes: int
    pass_hat_k: dict[str, Estimate]


def group_by(items: Iterable[T], keys: Callable[[T], list[str]]) -> list[tuple[str, list[T]]]:
    """Items grouped under each of their `keys`, groups in natural order (numbers numerically, then text)."""
    groups: dict[str, list[T]] = {}
    for item in items:
        for key in keys(item):
            groups.setdefault(key, []).append(item)
    return sorted(groups.items(), key=lambda pair: natural_order(pair[0]))


def natural_order(label: str) -> tuple[int, int, str]:
    """Sort key putting numeric labels first, in numeric order."""
    return (0, int(label), "") if label.isdigit() else (1, 0, label)


def breakdown(
    outcomes: Sequence[TaskOutcome],
    keys: Callable[[TaskOutcome], list[str]],
    max_k: int,
    bootstrap: Bootstrap,
) -> list[GroupStat]:
    """pass^k for k = 1..max_k within each group of tasks."""
    return [
        GroupStat(
            key=label,
            tasks=len(group),
            trials=sum(o.trials for o in group),
            successes=sum(o.successes for o in group),
            pass_hat_k=pass_hat_k_curve(group, max_k, bootstrap),
        )
        for label, group in group_by(outcomes, keys)
    ]


def breakdowns(
    outcomes: Sequence[TaskOutcome], max_k: int, bootstrap: Bootstrap
) -> dict[str, list[GroupStat]]:
    """Every standard breakdown, by name, and `retrieval` for runs on a knowledge base."""
    groupings = dict(GROUPINGS)
    if any(outcome.recall is not None for outcome in outcomes):
        groupings["retrieval"] = retrieval_group
    return {name: breakdown(outcomes, keys, max_k, bootstrap) for name, keys in groupings.items()}
