"""Scoring reference actions replayed as a trajectory, as an episode's evaluation scores one: the actions
made by their seats, then one agent message saying the information the task wants said. No judge runs
offline: natural-language assertions count as met, so the reward is what the world and the words decide."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from tau2.episode import Entry, EntryKind, TerminationReason, ToolCall, Trajectory, Verdict, evaluate
from tau2.rebrand import RenamedStart
from tau2.tasks import SolutionStep, Task, TaskSetupError, initialize_world
from tau2.world import Side, World

MET = Verdict(passed=True, reasoning="taken as met: no judge runs when reference actions are replayed")


def replay_reward(
    task: Task, steps: Sequence[SolutionStep], info: Sequence[str], data_dir: Path | None
) -> float:
    """The reward `task` gives a trajectory that makes `steps` on a fresh world of `data_dir` and then
    says `info`; 0 when the task cannot even be set up there."""
    try:
        world = initialize_world(task, data_dir)
    except TaskSetupError:
        return 0.0
    trajectory = _trajectory(world, steps, info)
    verdicts = {statement: MET for statement in task.evaluation.nl_assertions or []}
    return evaluate(task, world, trajectory, data_dir=data_dir, nl_verdicts=verdicts).reward


def replay_start_reward(start: RenamedStart, steps: Sequence[SolutionStep], info: Sequence[str]) -> float:
    """`replay_reward` on a renamed simulation start: `steps` made on a fresh world of it, scored by its
    task against its own reference end state."""
    task = start.task
    world = start.world()
    trajectory = _trajectory(world, steps, info)
    verdicts = {statement: MET for statement in task.evaluation.nl_assertions or []}
    return evaluate(
        task, world, trajectory, data_dir=start.data_dir, nl_verdicts=verdicts, reference=start.reference
    ).reward


def _trajectory(world: World, steps: Sequence[SolutionStep], info: Sequence[str]) -> Trajectory:
    """The steps made on `world` by their seats, then the agent's closing message with `info`."""
    entries: list[Entry] = []
    transfer = world.domain.transfer_tool
    transferred = False
    for number, step in enumerate(steps):
        call = ToolCall(call_id=f"replay-{number}", name=step.name, arguments=step.arguments, side=step.side)
        entries.append(Entry(index=len(entries), seat=step.side, kind=EntryKind.TOOL_CALL, tool_call=call))
        result = world.call(step.side, step.name, step.arguments)
        entries.append(
            Entry(
                index=len(entries), seat=step.side, kind=EntryKind.TOOL_RESULT, tool_call=call, result=result
            )
        )
        transferred = transferred or (step.name == transfer and result.ok)
    closing = f"Here is what you asked: {'; '.join(info)}." if info else "Your request is done."
    entries.append(Entry(index=len(entries), seat=Side.AGENT, kind=EntryKind.MESSAGE, text=closing))
    ending = TerminationReason.TRANSFER if transferred else TerminationReason.AGENT_STOP
    return Trajectory(entries=entries, termination=ending)


def writes_records(task: Task, data_dir: Path | None, records: Sequence[str]) -> bool:
    """Whether the task's reference actions change the records (these top-level fields of the state; all
    of it when none are named) of a fresh world of `data_dir`."""
    try:
        before = initialize_world(task, data_dir)
        after = initialize_world(task, data_dir)
    except TaskSetupError:
        return False
    for step in task.evaluation.solution:
        after.call(step.side, step.name, step.arguments)
    return _records(before.state, records) != _records(after.state, records)


def _records(state: BaseModel, records: Sequence[str]) -> object:
    return [getattr(state, name) for name in records] if records else state
