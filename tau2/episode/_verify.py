"""Task verification: a task is valid when its reference solution provably decides its assertions.

A fix task's assertions fail after initialisation, keep failing after every strict prefix of its reference
actions, and pass after all of them; a transfer task's assertions already hold after initialisation and its
reference actions call the domain's transfer tool (which is not replayed).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tau2.episode._structure import structure_problem
from tau2.episode._verify_basis import basis_problems
from tau2.tasks import Task, TaskSetupError, all_passed, first_failure, initialize_world
from tau2.world import World


class TaskVerification(BaseModel):
    """Whether a task is valid, and if not, one line saying why."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    valid: bool
    reason: str | None = None
    notes: list[str] = Field(default_factory=list)
    """Facts worth reporting about a valid task (e.g. doing nothing passes it)."""


def verify_task(task: Task, data_dir: Path | None = None) -> TaskVerification:
    """Check a task on one fresh world. Unknown domains and bad data files raise `UserInputError`."""
    broken = structure_problem(task)
    if broken is not None:
        return TaskVerification(task_id=task.id, valid=False, reason=": ".join(broken))
    if task.evaluation.reward_basis is not None:
        reason, notes = basis_problems(task, data_dir)
        return TaskVerification(task_id=task.id, valid=reason is None, reason=reason, notes=notes)
    try:
        world = initialize_world(task, data_dir)
    except TaskSetupError as error:
        return TaskVerification(task_id=task.id, valid=False, reason=error.reason)
    reason = _transfer_problem(world, task) if task.evaluation.expects_transfer else _fix_problem(world, task)
    return TaskVerification(task_id=task.id, valid=reason is None, reason=reason)


def _transfer_problem(world: World, task: Task) -> str | None:
    """Why a transfer task is invalid, or None."""
    transfer_tool = world.domain.transfer_tool
    if transfer_tool is None:
        return f"a transfer is expected but domain {world.domain.name!r} has no transfer tool"
    if not any(step.name == transfer_tool for step in task.evaluation.solution):
        return f"a transfer is expected but no reference action calls {transfer_tool}"
    failure = first_failure(world, task.evaluation.assertions)
    if failure is not None:
        return f"assertions fail after initialisation: {failure.describe()}"
    return None


def _fix_problem(world: World, task: Task) -> str | None:
    """Why a fix task is invalid, or None; replays the reference actions on `world`."""
    assertions = task.evaluation.assertions
    steps = task.evaluation.solution
    if not assertions:
        return "no assertions: nothing decides whether the task is solved"
    if not steps:
        return "no reference actions"
    if all_passed(world, assertions):
        return "assertions already pass after initialisation"
    total = len(steps)
    for number, step in enumerate(steps, start=1):
        result = world.call(step.side, step.name, step.arguments)
        if result.error is not None:
            return (
                f"action {number} of {total} ({step.name}) failed: "
                f"{result.error.code.value}: {result.error.message}"
            )
        if number < total and all_passed(world, assertions):
            return f"assertions already pass after action {number} of {total} ({step.name})"
    failure = first_failure(world, assertions)
    if failure is not None:
        return f"assertions fail after action {total} of {total} ({steps[-1].name}): {failure.describe()}"
    return None
