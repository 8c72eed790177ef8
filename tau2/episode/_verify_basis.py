"""Verifying a task judged by a reward basis (τ²-bench's airline and retail style).

Valid when the basis is not empty, every reference action names a tool of its side (a call that fails is
a no-op, as in τ²-bench), the stored assertions hold after the reference actions, and every information
item can be matched by a message. Natural-language assertions need a judge, so verification notes them
as not judged instead of counting them; it also notes tasks that an agent doing nothing would pass.
"""

from __future__ import annotations

from pathlib import Path

from tau2.episode._basis import evaluate_basis, replay_reference
from tau2.episode._trajectory import TerminationReason, Trajectory
from tau2.tasks import RewardType, Task, TaskSetupError, first_failure, initialize_world
from tau2.world import get_domain

NOT_JUDGED = "natural-language assertions not judged (verify runs no judge)"
NOTHING_PASSES = (
    "doing nothing passes: an agent that changes nothing and says nothing meets every gating check"
)
NOTHING_PASSES_BUT_JUDGE = (
    "doing nothing passes every check but the natural-language assertions, which only a judge can fail"
)


def basis_problems(task: Task, data_dir: Path | None) -> tuple[str | None, list[str]]:
    """(why the task is invalid or None, notes). Unknown domains and bad data files raise."""
    basis = task.evaluation.reward_basis or []
    if not basis:
        return "empty reward basis: nothing decides whether the task is solved", []
    try:
        world = replay_reference(task, data_dir)
    except TaskSetupError as error:
        return error.reason, []
    problem = _action_problem(task) or _information_problem(task)
    if problem is None and RewardType.ENV_ASSERTION in basis:
        failure = first_failure(world, task.evaluation.assertions)
        if failure is not None:
            problem = f"assertions fail after the reference actions: {failure.describe()}"
    if problem is not None:
        return problem, []
    return None, _notes(task, data_dir)


def _action_problem(task: Task) -> str | None:
    """A reference action no seat could ever make: its tool does not exist on its side."""
    domain_tools = get_domain(task.domain).tools
    steps = task.evaluation.solution
    for number, step in enumerate(steps, start=1):
        tool = domain_tools.tool(step.name)
        if tool is None or tool.side is not step.side:
            return f"action {number} of {len(steps)} ({step.name}): no {step.side.value} tool of that name"
    return None


def _information_problem(task: Task) -> str | None:
    """An information item no message can match (blank, or holding a comma, which messages lose)."""
    for item in task.evaluation.communicate_info or []:
        if not item.strip():
            return "a communicate_info item is blank"
        if "," in item:
            return f"communicate_info item {item!r} holds a comma, which no message can match"
    return None


def _notes(task: Task, data_dir: Path | None) -> list[str]:
    """Statements left unjudged, and whether an agent that does nothing would pass."""
    notes = []
    gated_statements = RewardType.NL_ASSERTION in (task.evaluation.reward_basis or [])
    if gated_statements and task.evaluation.nl_assertions:
        notes.append(NOT_JUDGED)
    idle = Trajectory(termination=TerminationReason.USER_STOP)
    verdict = evaluate_basis(task, initialize_world(task, data_dir), idle, data_dir=data_dir)
    others_pass = all(
        check.passed is True
        for check in verdict.checks
        if check.gating and check.kind is not RewardType.NL_ASSERTION
    )
    if others_pass:
        notes.append(NOTHING_PASSES_BUT_JUDGE if gated_statements else NOTHING_PASSES)
    return notes
