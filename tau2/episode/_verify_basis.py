"""Verifying a task judged by a reward basis (τ²-bench's airline and retail style).

Valid when the basis is not empty, every reference action names a tool of its side (a call that fails is
a no-op, as in τ²-bench), the stored assertions hold after the reference actions, and every information
item can be matched by a message. Natural-language assertions need a judge, so verification notes them
as not judged instead of counting them; it also notes tasks that an agent doing nothing would pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from tau2.episode._basis import replay_reference_results
from tau2.episode._idle import IdleOutcome, idle_outcome
from tau2.tasks import RewardType, Task, TaskSetupError, first_failure, get_domain
from tau2.world import Side, ToolResult, WorldRules, refusal_of

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
        world, results = replay_reference_results(task, data_dir)
    except TaskSetupError as error:
        return error.reason, []
    problem = _action_problem(task) or _information_problem(task)
    if problem is None and RewardType.ENV_ASSERTION in basis:
        failure = first_failure(world, task.evaluation.assertions)
        if failure is not None:
            problem = f"assertions fail after the reference actions: {failure.describe()}"
    if problem is not None:
        return problem, []
    return None, [item.note for item in unrealisable(task, world.domain, results)] + _notes(task, data_dir)


class UnplayableKind(StrEnum):
    """Why a reference action cannot be played as written in a conversation."""

    REFUSED = "refused"
    """Its world fails or refuses it when the reference actions are replayed in order."""
    AFTER_TRANSFER = "after_transfer"
    """It follows the transfer, which ends the conversation."""
    NOT_OFFERED = "not_offered"
    """It is a customer tool the task does not give the customer."""


@dataclass(frozen=True, slots=True)
class Unplayable:
    """One way a task's reference solution cannot be played as written, with the line verification notes."""

    kind: UnplayableKind
    actions: tuple[int, ...]
    """The reference actions concerned, numbered from 1."""
    note: str


def unrealisable(task: Task, domain: WorldRules[Any], results: list[ToolResult]) -> list[Unplayable]:
    """Why the reference solution cannot be played as written in a conversation, one item each: a
    reference action its world refuses (its database effect is then the reference's all the same), the
    actions after the transfer that ends the conversation, a customer action the customer is not given."""
    steps = task.evaluation.solution
    total = len(steps)
    found = []
    for number, (step, result) in enumerate(zip(steps, results, strict=True), start=1):
        refused = refusal_of(domain, result)
        if refused is not None:
            note = (
                f"reference action {number} of {total} ({_describe(step.name, step.arguments)}) is refused: "
                f"{refused}"
            )
            found.append(Unplayable(UnplayableKind.REFUSED, (number,), note))
    transfer = domain.transfer_tool
    ends = next((number for number, step in enumerate(steps, 1) if step.name == transfer), None)
    if ends is not None and ends < total:
        note = (
            f"reference actions {ends + 1}-{total} follow the transfer (action {ends}), which ends the "
            "conversation"
        )
        found.append(Unplayable(UnplayableKind.AFTER_TRANSFER, tuple(range(ends + 1, total + 1)), note))
    offered = None if task.user_tools is None else set(task.user_tools)
    for number, step in enumerate(steps, start=1):
        if step.side is Side.USER and offered is not None and step.name not in offered:
            note = (
                f"reference action {number} of {total} ({step.name}) is a customer tool the task does not "
                "give the customer"
            )
            found.append(Unplayable(UnplayableKind.NOT_OFFERED, (number,), note))
    return found


def _describe(name: str, arguments: dict[str, Any]) -> str:
    """A reference action's tool, with the hidden tool it wraps when it names one."""
    inner = next(
        (value for key, value in arguments.items() if key.endswith("tool_name") and isinstance(value, str)),
        None,
    )
    return f"{name} {inner}" if inner else name


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
    outcome = idle_outcome(task, data_dir)
    if outcome is not IdleOutcome.FAILS:
        notes.append(NOTHING_PASSES if outcome is IdleOutcome.PASSES else NOTHING_PASSES_BUT_JUDGE)
    return notes
