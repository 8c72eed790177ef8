"""τ²-bench's official airline and retail tasks (public conformance data): every task verifies, the
oracle scores 1.0 on every task, the null agent 0 on every task that changes the database, and verify
names exactly the tasks an idle agent passes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2 import ActorSpec, EpisodeConfig, Task, load_task_file, make_actor, run_episode
from tau2.cli import app
from tau2.episode import Mode
from tau2.episode._verify_basis import NOTHING_PASSES
from tau2.tasks import RewardType
from tau2.world import Side

from .conformance import conformance_dir

IDLE_PASSES = {
    "airline": {
        "0",
        "1",
        "4",
        "5",
        "6",
        "10",
        "13",
        "26",
        "28",
        "31",
        "34",
        "36",
        "41",
        "43",
        "45",
        "46",
        "47",
    }
    | {"48", "49"},
    "retail": {"10", "12", "25", "50", "57", "65", "105"},
}
COUNTS = {"airline": 50, "retail": 114}


def rewards(tasks: list[Task], agent: str, data_dir: Path) -> dict[str, float]:
    async def one(task: Task) -> float:
        result = await run_episode(
            task,
            make_actor(ActorSpec(kind=agent), Side.AGENT, Mode.INTERACTIVE),
            make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE),
            EpisodeConfig(seed=0),
            data_dir=data_dir,
        )
        return result.reward

    return {task.id: asyncio.run(one(task)) for task in tasks}


@pytest.mark.parametrize("domain", ["airline", "retail"])
@pytest.mark.parametrize("file", ["tasks.json", "tasks_v1.json"])
def test_verify_accepts_every_official_task(domain: str, file: str) -> None:
    data_dir = conformance_dir(domain)
    outcome = CliRunner().invoke(app, ["verify", str(data_dir / file), "--data-dir", str(data_dir)])
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.output.splitlines()
    assert f"{COUNTS[domain]} tasks: {COUNTS[domain]} valid, 0 invalid" in lines
    if file == "tasks.json":
        idle = {line.split(":")[0] for line in lines if line.endswith(f"note: {NOTHING_PASSES}")}
        assert idle == IDLE_PASSES[domain]


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_oracle_scores_one_and_null_zero_where_the_database_changes(domain: str) -> None:
    data_dir = conformance_dir(domain)
    tasks = load_task_file(data_dir / "tasks.json")
    assert all(task.evaluation.reward_basis == [RewardType.DB, RewardType.COMMUNICATE] for task in tasks)
    changed = {
        t["task_id"]
        for t in json.loads((data_dir / "gold_replay.json").read_text())["tasks"]
        if t["db_changed"]
    }
    assert set(rewards(tasks, "oracle", data_dir).values()) == {1.0}
    null = rewards(tasks, "null", data_dir)
    assert all(null[task_id] == 0.0 for task_id in changed)
    assert {task_id for task_id, reward in null.items() if reward == 1.0} == IDLE_PASSES[domain]


def test_tasks_v1_carries_an_explicit_basis() -> None:
    data_dir = conformance_dir("retail")
    bases = {tuple(task.evaluation.reward_basis or []) for task in load_task_file(data_dir / "tasks_v1.json")}
    assert bases == {(RewardType.DB, RewardType.NL_ASSERTION), (RewardType.DB,)}
