"""What an agent that changes nothing and says nothing scores on a task: a task it passes does not tell
agents that act from agents that do not."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from tau2.episode._basis import evaluate_basis
from tau2.episode._trajectory import TerminationReason, Trajectory
from tau2.tasks import RewardType, Task, all_passed, initialize_world


class IdleOutcome(StrEnum):
    """How doing nothing fares on a task's fresh world."""

    FAILS = "fails"
    PASSES = "passes"
    """Every gating check holds: the reward is 1."""
    PASSES_UNLESS_JUDGED = "passes_unless_judged"
    """Every gating check holds but the natural-language assertions, which only a judge can fail."""


def idle_outcome(task: Task, data_dir: Path | None = None) -> IdleOutcome:
    """Score a conversation the customer ends at once, with no message and no tool call, on the task's
    fresh world (`TaskSetupError` when the task cannot be set up)."""
    world = initialize_world(task, data_dir)
    if task.evaluation.reward_basis is None:
        passes = all_passed(world, task.evaluation.assertions) and not task.evaluation.expects_transfer
        return IdleOutcome.PASSES if passes else IdleOutcome.FAILS
    idle = Trajectory(termination=TerminationReason.USER_STOP)
    verdict = evaluate_basis(task, world, idle, data_dir=data_dir)
    if verdict.reward >= 1.0:
        return IdleOutcome.PASSES
    others_pass = all(
        check.passed is True
        for check in verdict.checks
        if check.gating and check.kind is not RewardType.NL_ASSERTION
    )
    if others_pass and RewardType.NL_ASSERTION in task.evaluation.reward_basis:
        return IdleOutcome.PASSES_UNLESS_JUDGED
    return IdleOutcome.FAILS
