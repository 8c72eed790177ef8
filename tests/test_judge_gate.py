"""The judge is not asked when a deterministic part of the reward has already failed: at the HTTP boundary
(the scripted OpenAI-compatible server as the judge, its requests counted), judge-gated airline and retail
runs ask it 0 times for the simulations whose database check (or other deterministic part) failed and
score exactly as `--judge-always` does; panels, `tau2 regrade --judge-model` and `tau2 episode` follow the
same rule; and the rule itself never skips a judge whose verdicts could matter."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2 import get_domain, load_task_file
from tau2.cli import app
from tau2.config import RunConfig
from tau2.episode import (
    FINISHED,
    NOT_NEEDED,
    CheckRecord,
    TerminationReason,
    Verdict,
    gated_reward,
    judge_needed,
    rejudged_checks,
)
from tau2.report.ablation import ablation
from tau2.tasks import RewardType, Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

JUDGE, SECOND = "openai/gpt-4o-mini", "openai/gpt-4o"
DETERMINISTIC = [RewardType.DB, RewardType.ENV_ASSERTION, RewardType.COMMUNICATE, RewardType.ACTION]


def statement(task_id: str) -> str:
    return f"The agent handled {task_id} well."


def judged_task(prompt: str) -> str:
    """The task a judge request is about, from the statement it is asked to decide."""
    match = re.search(r"^1\. The agent handled (\S+) well\.$", prompt, flags=re.MULTILINE)
    assert match is not None, prompt
    return match.group(1)


def judge_reply(request: ChatRequest) -> Reply:
    """Every statement met: a simulation the judge is asked about passes when its other parts do."""
    outcomes = re.findall(r"^\d+\. (.*)$", str(request.messages[-1]["content"]), flags=re.MULTILINE)
    results = [{"expectedOutcome": text, "reasoning": "seen", "metExpectation": True} for text in outcomes]
    usage = ScriptedUsage(prompt_tokens=1000, completion_tokens=100)
    return Reply.text(json.dumps({"results": results}), usage=usage)


@pytest.fixture
def server() -> Any:
    with ScriptedOpenAIServer(judge_reply) as running:
        yield running


def gated_suite(domain: str, path: Path) -> Path:
    """The domain's tasks judged by their database and one statement each."""
    tasks = load_task_file(Path(get_domain(domain).default_suite))
    basis = [RewardType.DB, RewardType.NL_ASSERTION]
    judged = [
        task.model_copy(
            update={
                "evaluation": task.evaluation.model_copy(
                    update={"reward_basis": basis, "nl_assertions": [statement(task.id)]}
                )
            }
        )
        for task in tasks
    ]
    Suite(name="gated", domain=domain, tasks=judged).save(path)
    return path


def judge_options(server: ScriptedOpenAIServer, *models: str) -> list[str]:
    named = [option for model in models for option in ("--judge-model", model)]
    return [*named, "--judge-api-base", server.base_url, "--judge-arg", "api_key=sk-judge"]


def invoke(*arguments: str | Path) -> Any:
    return CliRunner().invoke(app, [str(argument) for argument in arguments])


def run(
    suite: Path,
    out: Path,
    server: ScriptedOpenAIServer,
    agent: str,
    *extra: str,
    judges: tuple[str, ...] = (),
) -> Counter[str]:
    """Run the suite twice per task; the judge requests it made, by task."""
    before = server.request_count
    arguments = ["run", "--suite", suite, "--agent", agent, "--user", "scripted", "--trials", "2", "--quiet"]
    result = invoke(*arguments, "--out", out, *judge_options(server, *(judges or (JUDGE,))), *extra)
    assert result.exit_code == 0, result.output
    return Counter(judged_task(str(r.messages[-1]["content"])) for r in server.requests[before:])


def records(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    return {(r["task_id"], r["trial"]): r for r in map(json.loads, lines)}


def deterministic_failure(record: dict[str, Any]) -> bool:
    """Whether a check other than the statements' gated the record and failed, or it ended improperly."""
    failed = any(
        c["gating"] and c["kind"] != "NL_ASSERTION" and c["passed"] is not True for c in record["checks"]
    )
    return failed or record["termination"] not in {reason.value for reason in FINISHED}


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_a_judge_gated_run_asks_no_judge_where_the_database_check_failed(
    domain: str, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    suite = gated_suite(domain, tmp_path / "suite.json")
    asked = run(suite, tmp_path / "gated", server, "null")
    always = run(suite, tmp_path / "always", server, "null", "--judge-always")
    gated, every = records(tmp_path / "gated"), records(tmp_path / "always")
    database_failed = {key for key, r in gated.items() if not _check(r, "DB")}
    assert database_failed and len(database_failed) < len(gated), "the null agent fails some databases only"
    assert all(asked[task_id] == 0 for task_id, _ in database_failed)
    skipped = {key for key, r in gated.items() if deterministic_failure(r)}
    assert database_failed <= skipped
    assert sum(asked.values()) == len(gated) - len(skipped) > 0, "one request per simulation left open"
    assert sum(always.values()) == len(every), "--judge-always asks about every simulation"
    assert {key: r["reward"] for key, r in gated.items()} == {key: r["reward"] for key, r in every.items()}
    for key, record in gated.items():
        statements = [c for c in record["checks"] if c["kind"] == "NL_ASSERTION"]
        if key in skipped:
            assert record["judge_skipped"] == "deterministic_failure" and record["judge_usage"] is None
            assert [c["detail"] for c in statements] == [NOT_NEEDED.problem]
        else:
            assert "judge_skipped" not in record and record["judge_usage"]["calls"] == 1
        assert "judge_skipped" not in every[key]
        assert [c for c in record["checks"] if c["kind"] != "NL_ASSERTION"] == [
            c for c in every[key]["checks"] if c["kind"] != "NL_ASSERTION"
        ]


def _check(record: dict[str, Any], kind: str) -> bool:
    (check,) = [c for c in record["checks"] if c["kind"] == kind]
    return bool(check["passed"])


def test_an_agent_that_passes_the_database_is_judged_as_before(
    tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    suite = gated_suite("airline", tmp_path / "suite.json")
    asked = run(suite, tmp_path / "oracle", server, "oracle")
    oracle = records(tmp_path / "oracle")
    assert sum(asked.values()) == len(oracle) and all(r["reward"] == 1.0 for r in oracle.values())


def test_a_panel_is_not_asked_either_and_the_report_counts_the_calls_saved(
    tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    suite = gated_suite("airline", tmp_path / "suite.json")
    asked = run(suite, tmp_path / "panel", server, "null", judges=(JUDGE, SECOND))
    panel = records(tmp_path / "panel")
    skipped = [r for r in panel.values() if r.get("judge_skipped")]
    judged = [r for r in panel.values() if not r.get("judge_skipped")]
    assert skipped and judged
    assert sum(asked.values()) == 2 * len(judged), "both judges of the panel, only where needed"
    assert all("judges" not in r for r in skipped) and all(len(r["judges"]) == 2 for r in judged)
    report = json.loads(invoke("report", tmp_path / "panel", "--json").stdout)
    saving = report["cost"]["judge_saving"]
    judge_cost = sum(r["judge_usage"]["cost"] for r in judged)
    assert saving["not_needed"] == len(skipped) and saving["calls_not_made"] == 2 * len(skipped)
    assert saving["judged"] == len(judged)
    assert saving["estimated_usd"] == pytest.approx(len(skipped) * judge_cost / len(judged))
    (statements,) = [c for c in report["checks"] if c["kind"] == "NL_ASSERTION"]
    assert statements["not_needed"] == len(skipped) and statements["not_judged"] == 0
    shown = invoke("view", tmp_path / "panel", "--task", skipped[0]["task_id"], "--trial", "0").output
    assert re.search(r"NL_ASSERTION +│ gating +│ not needed +│", shown)
    headline = invoke("report", tmp_path / "panel").output
    assert f"judge not needed in {len(skipped)} simulations" in headline
    assert f"{2 * len(skipped)} calls not made" in headline


def test_regrade_by_judges_follows_the_same_rule(tmp_path: Path, server: ScriptedOpenAIServer) -> None:
    suite = gated_suite("retail", tmp_path / "suite.json")
    run(suite, tmp_path / "always", server, "null", "--judge-always")
    original = records(tmp_path / "always")
    open_ = [key for key, r in original.items() if not deterministic_failure(r)]
    assert open_ and len(open_) < len(original)
    before = server.request_count
    result = invoke(
        "regrade", tmp_path / "always", "--out", tmp_path / "regraded", *judge_options(server, SECOND)
    )
    assert result.exit_code == 0, result.output
    assert server.request_count - before == len(open_)
    skipped = len(original) - len(open_)
    assert f"{skipped} simulations not judged: a deterministic part of their reward had already failed" in (
        result.output
    )
    regraded = records(tmp_path / "regraded")
    assert {k: r["reward"] for k, r in regraded.items()} == {k: r["reward"] for k, r in original.items()}
    assert all((r.get("judge_skipped") is not None) == (key not in open_) for key, r in regraded.items())
    manifest = json.loads((tmp_path / "regraded" / "manifest.json").read_text())
    assert "judge_always" not in manifest["config"]
    before = server.request_count
    always = invoke(
        "regrade",
        tmp_path / "always",
        "--out",
        tmp_path / "every",
        *judge_options(server, SECOND),
        "--judge-always",
    )
    assert always.exit_code == 0, always.output
    assert server.request_count - before == len(original)
    assert json.loads((tmp_path / "every" / "manifest.json").read_text())["config"]["judge_always"] is True
    every = records(tmp_path / "every")
    assert {k: r["reward"] for k, r in every.items()} == {k: r["reward"] for k, r in original.items()}
    assert all("judge_skipped" not in r for r in every.values())


def test_episode_says_the_statements_were_not_needed(tmp_path: Path, server: ScriptedOpenAIServer) -> None:
    suite = gated_suite("airline", tmp_path / "suite.json")
    arguments = [
        "episode",
        "--suite",
        suite,
        "--task-id",
        "cancel_business",
        "--agent",
        "null",
        "--user",
        "scripted",
    ]
    before = server.request_count
    shown = invoke(*arguments, *judge_options(server, JUDGE))
    assert shown.exit_code == 0, shown.output
    assert server.request_count == before and "nl_assertion (gating) not needed" in shown.output
    result = json.loads(invoke(*arguments, "--json", *judge_options(server, JUDGE)).stdout)
    assert result["evaluation"]["judge_skipped"] == "deterministic_failure" and result["reward"] == 0.0
    judged = json.loads(invoke(*arguments, "--json", "--judge-always", *judge_options(server, JUDGE)).stdout)
    assert server.request_count == before + 1 and "judge_skipped" not in judged["evaluation"]
    assert judged["reward"] == 0.0


KINDS = st.sampled_from([*DETERMINISTIC, RewardType.NL_ASSERTION])
CHECKS = st.lists(
    st.builds(
        CheckRecord,
        kind=KINDS,
        gating=st.booleans(),
        passed=st.booleans(),
        item=st.sampled_from(["a", "b", "c"]),
    ),
    max_size=8,
)


@given(CHECKS, st.sampled_from(list(TerminationReason)), st.data())
def test_the_judge_is_skipped_exactly_when_no_verdict_could_give_a_reward(
    checks: list[CheckRecord], termination: TerminationReason, data: st.DataObject
) -> None:
    """Checks as the runner evaluates them before judging (statements not judged), then with any verdicts:
    when the judge is not needed every verdict gives 0; when a gating statement leaves the reward open,
    verdicts that all pass give 1."""
    unjudged = [
        check.model_copy(update={"passed": None}) if check.kind is RewardType.NL_ASSERTION else check
        for check in checks
    ]
    gates = any(check.gating for check in unjudged if check.kind is RewardType.NL_ASSERTION)
    reward = gated_reward(unjudged, termination)
    verdicts = {item: Verdict(passed=data.draw(st.booleans())) for item in ("a", "b", "c")}
    judged = rejudged_checks(unjudged, verdicts)
    judged_reward = gated_reward(judged, termination) if gates else reward
    if not judge_needed(unjudged, termination, reward):
        assert judged_reward == 0.0
    elif gates:
        passing = rejudged_checks(unjudged, {item: Verdict(passed=True) for item in ("a", "b", "c")})
        assert gated_reward(passing, termination) == 1.0
    else:
        assert reward == 1.0, "the judge decides nothing: asked only for its diagnostics on a success"


def test_arms_that_differ_only_in_judging_always_cannot_differ() -> None:
    found = ablation(RunConfig(), RunConfig(judge_always=True))
    assert found.settings == ["judge_always"] and not found.comparable
    assert found.reason is not None and "which changes what judging costs, never a reward" in found.reason
    assert "judge_always" not in RunConfig().model_dump(), "a configuration without it reads as before"
