"""τ²-bench's 97 official banking tasks: `tau2 verify` accepts the task folder and names the reference
actions that cannot be played as written; the oracle agent with the scripted customer scores 1 on every
other task under the offline retrieval configurations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2 import ActorSpec, EpisodeConfig, Side, Task, load_task_file, make_actor, run_episode
from tau2.cli import app
from tau2.episode import Mode, NLJudge
from tau2.llm import ModelSpec
from tau2.testing import Reply, ScriptedOpenAIServer
from tau2.world import RetrievalConfig

DOMAIN = "banking_knowledge"
NOT_PLAYABLE = {"task_005"}
"""The reference transfers first and acts afterwards, but a transfer ends the conversation."""
NEEDS_A_JUDGE = {"task_102"}
"""Judged by a natural-language assertion too."""


def _tasks(data: Path) -> list[Task]:
    return load_task_file(data / "tasks", DOMAIN)


def test_verify_accepts_the_task_folder_and_names_what_cannot_be_played(banking_data: Path) -> None:
    result = CliRunner().invoke(
        app, ["verify", str(banking_data / "tasks"), "--data-dir", str(banking_data), "--domain", DOMAIN]
    )
    assert result.exit_code == 0, result.output
    assert "97 tasks: 97 valid, 0 invalid" in result.output
    lines = result.output.splitlines()
    assert (
        "task_005: note: reference actions 2-3 follow the transfer (action 1), which ends the conversation"
        in lines
    )
    assert (
        "task_051: note: reference action 18 of 20 (call_discoverable_agent_tool "
        "submit_credit_limit_increase_request_7392) is refused: Error: A similar request may already exist."
    ) in lines
    refused_083 = [
        line for line in lines if line.startswith("task_083: note: reference action") and "refused" in line
    ]
    assert len(refused_083) == 4 and all("'customer_max_liability_amount'" in line for line in refused_083)
    assert sum("is refused" in line for line in lines if line.startswith("task_")) == 5


def _rewards(tasks: list[Task], data: Path, retrieval: str, judge: NLJudge | None = None) -> dict[str, float]:
    async def one(task: Task) -> float:
        result = await run_episode(
            task,
            make_actor(ActorSpec(kind="oracle"), Side.AGENT, Mode.INTERACTIVE),
            make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE),
            EpisodeConfig(seed=0, retrieval=RetrievalConfig(name=retrieval)),
            data_dir=data,
            judge=judge,
        )
        return result.reward

    async def every() -> dict[str, float]:
        return {task.id: await one(task) for task in tasks}

    return asyncio.run(every())


@pytest.mark.parametrize("retrieval", ["no_knowledge", "bm25", "golden_retrieval"])
def test_the_oracle_scores_one_on_every_playable_task(banking_data: Path, retrieval: str) -> None:
    rewards = _rewards(_tasks(banking_data), banking_data, retrieval)
    assert len(rewards) == 97
    failing = {task_id for task_id, reward in rewards.items() if reward < 1.0}
    assert failing == NOT_PLAYABLE | NEEDS_A_JUDGE


def test_the_judged_task_passes_when_the_judge_agrees(banking_data: Path) -> None:
    tasks = [task for task in _tasks(banking_data) if task.id in NEEDS_A_JUDGE]
    verdicts = '{"results": [{"expectedOutcome": "x", "reasoning": "done", "metExpectation": true}]}'
    with ScriptedOpenAIServer([Reply.text(verdicts)]) as server:
        judge = NLJudge(ModelSpec(name="openai/judge", api_base=server.base_url))
        assert _rewards(tasks, banking_data, "bm25", judge) == {"task_102": 1.0}
