"""The natural-language judge at the HTTP boundary (the local scripted OpenAI server): verdicts gate the
reward when the basis says so, empty or malformed replies never pass, verdicts are cached per
(simulation, statement), and the judge's cost gets its own ledger line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2 import Task, get_domain, load_task_file
from tau2.cli import app
from tau2.episode import Entry, EntryKind, NLJudge, TerminationReason, Trajectory, evaluate, replay_reference
from tau2.episode._judge import judge_episode, parse_verdicts
from tau2.llm import ModelSpec
from tau2.tasks import RewardType
from tau2.testing import Reply, ScriptedOpenAIServer, ScriptedUsage
from tau2.world import Side

PRICED = "openai/gpt-4o-mini"
STATEMENTS = ["The agent cancels the order.", "The agent is polite."]


def judge_spec(base_url: str) -> ModelSpec:
    return ModelSpec(name=PRICED, api_base=base_url, args={"api_key": "sk-test"}, max_retries=0)


def results(*met: Any) -> str:
    return json.dumps(
        {
            "results": [
                {"expectedOutcome": s, "reasoning": "seen", "metExpectation": m}
                for s, m in zip(STATEMENTS, met, strict=True)
            ]
        }
    )


def judged_task() -> Task:
    task = next(
        t for t in load_task_file(Path(get_domain("retail").default_suite)) if t.id == "cancel_pending"
    )
    evaluation = task.evaluation.model_copy(
        update={"reward_basis": [RewardType.DB, RewardType.NL_ASSERTION], "nl_assertions": STATEMENTS}
    )
    return task.model_copy(update={"evaluation": evaluation})


TRAJECTORY = Trajectory(
    entries=[Entry(index=0, seat=Side.AGENT, kind=EntryKind.MESSAGE, text="Your order is cancelled.")],
    termination=TerminationReason.USER_STOP,
)


async def reward_with(reply: Reply) -> tuple[float, list[bool | None], list[str | None]]:
    task = judged_task()
    async with ScriptedOpenAIServer([reply]) as server:
        judgement = await judge_episode(NLJudge(judge_spec(server.base_url)), task, TRAJECTORY, 7)
        prompt = server.requests[0].messages[-1]["content"]
    assert "agent: Your order is cancelled." in prompt and STATEMENTS[0] in prompt
    evaluation = evaluate(
        task,
        replay_reference(task, None),
        TRAJECTORY,
        nl_verdicts=judgement.verdicts,
        judge_usage=judgement.usage,
    )
    checks = [c for c in evaluation.checks if c.kind is RewardType.NL_ASSERTION]
    assert evaluation.judge_usage is not None and evaluation.judge_usage.calls == 1
    return evaluation.reward, [c.passed for c in checks], [c.detail for c in checks]


async def test_all_statements_met_pass() -> None:
    assert (await reward_with(Reply.text(results(True, True))))[:2] == (1.0, [True, True])


async def test_one_unmet_statement_fails() -> None:
    assert (await reward_with(Reply.text(results(True, False))))[:2] == (0.0, [True, False])


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply.text(""), "empty judge reply"),
        (Reply.text("yes, all good"), "judge reply is not JSON"),
        (Reply.text(json.dumps({"results": []})), "judge gave 0 results for 2 statements"),
        (Reply.text(results(True, "yes")), "a judge result has no boolean `metExpectation`"),
        (Reply.text(json.dumps({"verdict": True})), "judge reply has no `results` list"),
    ],
)
async def test_empty_or_malformed_replies_never_pass(reply: Reply, problem: str) -> None:
    assert await reward_with(reply) == (0.0, [False, False], [problem, problem])


async def test_verdicts_are_cached_per_simulation_and_statement() -> None:
    task = judged_task()
    replies = [Reply.text(results(True, True)), Reply.text(results(False, False))]
    async with ScriptedOpenAIServer(replies) as server:
        judge = NLJudge(judge_spec(server.base_url))
        first = await judge_episode(judge, task, TRAJECTORY, 1)
        again = await judge_episode(judge, task, TRAJECTORY, 1)
        other = await judge_episode(judge, task, TRAJECTORY, 2)
        assert server.request_count == 2
    assert again.usage is None and again.verdicts == first.verdicts
    assert [v.passed for v in other.verdicts.values()] == [False, False]


def test_without_a_judge_gated_statements_are_not_judged_and_do_not_pass() -> None:
    task = judged_task()
    evaluation = evaluate(task, replay_reference(task, None), TRAJECTORY)
    (first, _) = [c for c in evaluation.checks if c.kind is RewardType.NL_ASSERTION]
    assert evaluation.reward == 0.0 and first.passed is None and first.detail == "not judged (no judge model)"


def test_parse_accepts_a_fenced_json_reply() -> None:
    verdicts = parse_verdicts(f"```json\n{results(True, False)}\n```", STATEMENTS)
    assert [v.passed for v in verdicts] == [True, False]


@pytest.mark.parametrize("executor", [[], ["--workers", "2"]], ids=["local", "workers"])
def test_run_records_the_judge_and_its_cost(tmp_path: Path, executor: list[str]) -> None:
    usage = ScriptedUsage(prompt_tokens=1000, completion_tokens=100)
    one = json.dumps({"results": [{"expectedOutcome": "x", "reasoning": "y", "metExpectation": True}]})
    with ScriptedOpenAIServer(lambda request: Reply.text(one, usage=usage)) as server:
        outcome = CliRunner().invoke(
            app,
            [
                *("run", "--domain", "airline", "--agent", "oracle", "--user", "scripted", "--quiet"),
                *("--out", str(tmp_path / "r"), "--task-ids", "cancel_business", "--judge-model", PRICED),
                *("--judge-api-base", server.base_url, "--judge-arg", "api_key=sk-test"),
                *executor,
            ],
        )
        assert outcome.exit_code == 0, outcome.output
        assert server.request_count == 1
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["judge"]["name"] == PRICED and manifest["reward_basis_source"] == "implied"
    record = json.loads((tmp_path / "r" / "results.jsonl").read_text().splitlines()[0])
    assert record["reward"] == 1.0 and record["judge_usage"]["cost"] > 0
    nl = [c for c in record["checks"] if c["kind"] == "NL_ASSERTION"]
    assert nl == [
        {"kind": "NL_ASSERTION", "gating": False, "passed": True, "item": nl[0]["item"], "detail": "y"}
    ]
    report = CliRunner().invoke(app, ["report", str(tmp_path / "r"), "--json"])
    assert "judge" in [line["seat"] for line in json.loads(report.output)["usage"]]
