"""Self-tests on real telecom tasks: the oracle solves every task in both modes, the null agent fails every
fix task, the transfer agent succeeds exactly on transfer tasks, and no seat sees the other's tool traffic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tau2.actors._null import NullAgent
from tau2.actors._oracle import OracleAgent
from tau2.actors._scripted import ScriptedUser
from tau2.actors._transfer import TransferAgent
from tau2.episode import (
    Actor,
    ActorTurn,
    Entry,
    EntryKind,
    EpisodeConfig,
    Mode,
    SeatContext,
    TerminationReason,
    run_episode,
)
from tau2.tasks import Task
from tau2.tau2bench import load_task_file
from tau2.world import Side

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
BASE_SUITE = Path(__file__).resolve().parents[1] / "domains" / "telecom" / "suites" / "base.json"
MODES = [EpisodeConfig(mode=Mode.INTERACTIVE), EpisodeConfig(mode=Mode.SOLO)]


def _suite(path: Path, data_dir: Path | None, reason: str) -> list[Any]:
    """(task, data directory) parameters for the tasks of `path`, or one skip when the file is absent."""
    if not path.is_file():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=reason), id=path.name)]
    return [pytest.param(task, data_dir, id=task.id) for task in load_task_file(path)]


CASES = [
    *_suite(CONFORMANCE / "tasks_small.json", CONFORMANCE, f"conformance tasks not found in {CONFORMANCE}"),
    *_suite(BASE_SUITE, None, f"generated suite {BASE_SUITE} does not exist yet"),
]


class Recording:
    """Wraps an actor and keeps every observation it received."""

    def __init__(self, inner: Actor) -> None:
        self.inner = inner
        self.seen: list[Entry] = []

    async def start(self, context: SeatContext) -> None:
        await self.inner.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.seen.extend(observation)
        return await self.inner.act(observation)


@pytest.mark.parametrize("config", MODES, ids=lambda config: config.label())
@pytest.mark.parametrize(("task", "data_dir"), CASES)
async def test_oracle_scores_one(task: Task, data_dir: Path | None, config: EpisodeConfig) -> None:
    result = await run_episode(task, OracleAgent(), ScriptedUser(), config, data_dir=data_dir)
    failed = [record.name for record in result.evaluation.assertions if not record.passed]
    assert result.reward == 1.0, (result.termination, result.trajectory.termination_detail, failed)
    assert result.evaluation.tool_errors == 0
    assert all(action.performed and action.by_right_seat for action in result.evaluation.actions)
    if task.evaluation.expects_transfer:
        assert result.termination is TerminationReason.TRANSFER


@pytest.mark.parametrize("config", MODES, ids=lambda config: config.label())
@pytest.mark.parametrize(("task", "data_dir"), CASES)
async def test_null_and_transfer_agents(task: Task, data_dir: Path | None, config: EpisodeConfig) -> None:
    null = await run_episode(task, NullAgent(), ScriptedUser(), config, data_dir=data_dir)
    transfer = await run_episode(task, TransferAgent(), ScriptedUser(), config, data_dir=data_dir)
    assert null.reward == 0.0
    assert null.termination in {TerminationReason.USER_STOP, TerminationReason.AGENT_STOP}
    assert transfer.reward == (1.0 if task.evaluation.expects_transfer else 0.0)


@pytest.mark.parametrize(("task", "data_dir"), CASES)
async def test_no_seat_observes_the_others_tool_traffic(task: Task, data_dir: Path | None) -> None:
    agent, user = Recording(OracleAgent()), Recording(ScriptedUser())
    result = await run_episode(task, agent, user, EpisodeConfig(), data_dir=data_dir)
    assert result.reward == 1.0
    for seat, recorder in ((Side.AGENT, agent), (Side.USER, user)):
        assert recorder.seen
        foreign = [e for e in recorder.seen if e.seat is not seat and e.kind is not EntryKind.MESSAGE]
        assert foreign == []
    own_user_calls = [e for e in user.seen if e.kind is EntryKind.TOOL_CALL]
    needs_phone = any(step.side is Side.USER for step in task.evaluation.solution)
    assert bool(own_user_calls) is (needs_phone and not task.evaluation.expects_transfer)
