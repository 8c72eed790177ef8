"""Several judges of natural-language assertions, end to end through the command line against the scripted
OpenAI-compatible server: every judge's verdicts kept in the record, the first judge's deciding the reward
(one judge scores and records exactly as before), agreement (κ) and the disagreeing assertions in reports,
the judges' cost on its own line, and `tau2 regrade` judging stored transcripts again into a new run
without touching the original."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2 import get_domain, load_task_file
from tau2.cli import app
from tau2.config import ConfigLayer, RunConfig, layered
from tau2.errors import UserInputError
from tau2.metrics import judge_agreement
from tau2.runs import load_run
from tau2.tasks import RewardType, Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

FIRST, SECOND, THIRD = "openai/gpt-4o-mini", "openai/gpt-4o", "openai/gpt-4.1-mini"
KEY = "sk-judge-secret-42"
FAILS = {
    FIRST: {0, 1, 2},
    SECOND: {0, 1, 3, 4},
    THIRD: {0, 1, 3, 4},
}
"""The assertions (numbered over the suite, two per task) each scripted judge finds unmet: the first two
judges disagree on assertions 2, 3 and 4; the second and third agree everywhere."""


def statement(task: int, item: int) -> str:
    return f"Assertion {2 * task + item}: the agent handled task {task} well."


def number(text: str) -> int:
    match = re.match(r"Assertion (\d+):", text)
    assert match is not None, text
    return int(match.group(1))


def judge_reply(request: ChatRequest) -> Reply:
    """Each judge's verdicts on the outcomes it is asked about, by the model the request names."""
    model = next(name for name in FAILS if name.split("/")[-1] == request.model.split("/")[-1])
    prompt = str(request.messages[-1]["content"])
    outcomes = re.findall(r"^\d+\. (.*)$", prompt.split("Expected outcomes:")[1], flags=re.MULTILINE)
    results = [
        {"expectedOutcome": text, "reasoning": model, "metExpectation": number(text) not in FAILS[model]}
        for text in outcomes
    ]
    return Reply.text(
        json.dumps({"results": results}), usage=ScriptedUsage(prompt_tokens=500, completion_tokens=50)
    )


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """The retail tasks judged by their database and two natural-language assertions each."""
    tasks = load_task_file(Path(get_domain("retail").default_suite))
    judged = [
        task.model_copy(
            update={
                "evaluation": task.evaluation.model_copy(
                    update={
                        "reward_basis": [RewardType.DB, RewardType.NL_ASSERTION],
                        "nl_assertions": [statement(index, 0), statement(index, 1)],
                    }
                )
            }
        )
        for index, task in enumerate(tasks)
    ]
    path = tmp_path / "suite.json"
    Suite(name="judged", domain="retail", tasks=judged).save(path)
    return path


@pytest.fixture
def server() -> Any:
    with ScriptedOpenAIServer(judge_reply) as running:
        yield running


def judge_options(server: ScriptedOpenAIServer, *models: str) -> list[str]:
    named = [option for model in models for option in ("--judge-model", model)]
    return [*named, "--judge-api-base", server.base_url, "--judge-arg", f"api_key={KEY}"]


def run(suite: Path, out: Path, server: ScriptedOpenAIServer, *models: str) -> None:
    arguments = ["run", "--suite", str(suite), "--agent", "oracle", "--user", "scripted", "--quiet"]
    result = CliRunner().invoke(app, [*arguments, "--out", str(out), *judge_options(server, *models)])
    assert result.exit_code == 0, result.output


def records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def failing_tasks(run_dir: Path) -> list[str]:
    ids = [task.id for task in load_task_file(Path(get_domain("retail").default_suite))]
    return [
        ids[i]
        for i in range(len(ids))
        if any(r["task_id"] == ids[i] and r["reward"] == 0 for r in records(run_dir))
    ]


def task_ids() -> list[str]:
    return [task.id for task in load_task_file(Path(get_domain("retail").default_suite))]


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def invoke(*arguments: str | Path) -> Any:
    return CliRunner().invoke(app, [str(argument) for argument in arguments])


def test_two_judges_keep_both_verdicts_and_the_first_decides_the_reward(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    out = tmp_path / "two"
    run(suite, out, server, FIRST, SECOND)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["judge"]["name"] == FIRST
    assert [judge["name"] for judge in manifest["config"]["extra_judges"]] == [SECOND]
    assert KEY not in (out / "manifest.json").read_text() and KEY not in (out / "results.jsonl").read_text()
    ids = task_ids()
    assert failing_tasks(out) == ids[:2]  # the first judge fails assertions 0–2: tasks 0 and 1
    for index, record in enumerate(records(out)):
        assert [judge["model"] for judge in record["judges"]] == [FIRST, SECOND]
        for judge in record["judges"]:
            verdicts = {text: verdict["passed"] for text, verdict in judge["verdicts"].items()}
            assert verdicts == {
                statement(index, item): 2 * index + item not in FAILS[judge["model"]] for item in (0, 1)
            }
        nl = [check for check in record["checks"] if check["kind"] == "NL_ASSERTION"]
        assert [check["passed"] for check in nl] == [2 * index + item not in FAILS[FIRST] for item in (0, 1)]
        both = [judge["usage"]["cost"] for judge in record["judges"]]
        assert record["judge_usage"]["calls"] == 2 and record["judge_usage"]["cost"] == pytest.approx(
            sum(both)
        )


def test_reports_show_kappa_the_disagreements_and_the_judges_cost(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    out = tmp_path / "two"
    run(suite, out, server, FIRST, SECOND)
    report = json.loads(invoke("report", out, "--json").output)
    judges = report["judges"]
    # 10 assertions, 7 agreed; the first judge fails 3, the second 4: p_e = (3·4 + 7·6) / 100 = 0.54.
    assert judges["statistic"] == "Cohen's kappa" and judges["kappa"] == pytest.approx((0.7 - 0.54) / 0.46)
    assert (judges["assertions"], judges["agreed"]) == (10, 7)
    ids = task_ids()
    assert [(d["task_id"], d["trial"], d["assertion"], d["verdicts"]) for d in judges["disagreements"]] == [
        (ids[1], 0, statement(1, 0), [False, True]),
        (ids[1], 0, statement(1, 1), [True, False]),
        (ids[2], 0, statement(2, 0), [True, False]),
    ]
    costs = {cost["judge"]: cost for cost in judges["costs"]}
    assert costs[FIRST]["calls"] == costs[SECOND]["calls"] == 5
    assert costs[FIRST]["cost"] < costs[SECOND]["cost"]  # gpt-4o costs more than gpt-4o-mini
    headline = invoke("report", out).output
    judge_line = next(line for line in headline.splitlines() if line.startswith("2 judges' cost: $"))
    assert "10 calls" in judge_line
    assert (
        f"judge agreement ({FIRST} · {SECOND}): Cohen's kappa 0.348, 3 of 10 assertions disagreeing"
        in headline
    )
    totals = next(line for line in headline.splitlines() if "simulations" in line and "passed" in line)
    assert "cost" not in totals  # the seats are offline: the judges' cost is not theirs
    full = invoke("report", out, "--full").output
    assert "Assertions the judges disagree on" in full and statement(2, 0) in full
    page = tmp_path / "report.html"
    assert invoke("report", out, "--html", page).exit_code == 0
    html = page.read_text()
    assert (
        "Judge agreement" in html
        and "Assertions the judges disagree on" in html
        and "Cohen&#x27;s kappa" in html
    )


def test_three_judges_are_measured_by_fleiss_kappa(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    out = tmp_path / "three"
    run(suite, out, server, FIRST, SECOND, THIRD)
    agreement = judge_agreement(load_run(out).records)
    assert agreement is not None and agreement.statistic == "Fleiss' kappa"
    # Items 0, 1 all fail; 2 fails for one judge; 3, 4 for two; 5–9 all pass (3 raters, 10 items):
    # mean pair agreement 0.8, 11 of 30 verdicts fail so chance is (11² + 19²) / 30² = 482/900.
    assert agreement.kappa == pytest.approx((0.8 - 482 / 900) / (1 - 482 / 900))
    assert [d.verdicts for d in agreement.disagreements] == [
        [False, True, True],
        [True, False, False],
        [True, False, False],
    ]


def test_one_judge_records_and_scores_as_before(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    out = tmp_path / "one"
    run(suite, out, server, FIRST)
    manifest = json.loads((out / "manifest.json").read_text())
    assert "extra_judges" not in manifest["config"] and "regraded_from" not in manifest
    assert all("judges" not in record for record in records(out))
    assert failing_tasks(out) == task_ids()[:2]
    report = json.loads(invoke("report", out, "--json").output)
    assert report["judges"] is None
    assert "judge's cost: $" in invoke("report", out).output


def test_extra_judges_need_a_first_judge() -> None:
    with pytest.raises(UserInputError, match="extra_judges need a first judge"):
        layered([ConfigLayer({"extra_judges": ["openai/x"]})])


def test_a_configuration_of_several_judges_reads_back_from_toml(tmp_path: Path) -> None:
    config = RunConfig.model_validate(
        {"judge": FIRST, "extra_judges": [SECOND, {"name": THIRD, "timeout_s": 5}]}
    )
    path = tmp_path / "run.toml"
    path.write_text(config.to_toml())
    assert RunConfig.from_file(path) == config
    assert [judge.name for judge in config.judges] == [FIRST, SECOND, THIRD]


def test_regrade_flips_exactly_what_the_new_judge_changes_and_leaves_the_run_as_it_was(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original = tmp_path / "run"
    run(suite, original, server, FIRST)
    before = files(original)
    asked = server.request_count
    regraded = tmp_path / "regraded"
    result = invoke("regrade", original, "--out", regraded, *judge_options(server, SECOND))
    assert result.exit_code == 0, result.output
    assert server.request_count == asked + 5  # one judge call per simulation; no conversation ran
    ids = task_ids()
    assert (
        "1 reward changed (0 now pass, 1 now fail)" in result.output
        and f"{ids[2]} trial 0: 1 → 0" in result.output
    )
    assert files(original) == before
    assert failing_tasks(regraded) == ids[:3]
    manifest = json.loads((regraded / "manifest.json").read_text())
    old_manifest = json.loads(before["manifest.json"])
    assert manifest["regraded_from"] == {
        "run_id": old_manifest["run_id"],
        "path": str(original.resolve()),
        "judges": [SECOND],
    }
    assert manifest["run_id"] != old_manifest["run_id"] and manifest["config"]["judge"]["name"] == SECOND
    assert KEY not in (regraded / "manifest.json").read_text()
    old, new = records(original), records(regraded)
    for a, b in zip(old, new, strict=True):
        assert (
            b["run_id"] == manifest["run_id"]
            and b["trajectory"] == a["trajectory"]
            and b["usage"] == a["usage"]
        )
        assert {k: v for k, v in b.items() if k not in ("run_id", "checks", "reward", "judge_usage")} == {
            k: v for k, v in a.items() if k not in ("run_id", "checks", "reward", "judge_usage")
        }
    full = invoke("report", regraded, "--full")
    assert full.exit_code == 0 and re.search(rf"regraded from +{old_manifest['run_id']} ", full.output)
    comparison = json.loads(invoke("compare", original, regraded, "--json").output)
    assert comparison["flips"]["majority"] == {"gained": [], "lost": [ids[2]]}
    assert f"judge {FIRST} vs {SECOND}" in comparison["title"]


def test_regrade_keeps_the_recorded_findings_and_task_defects_only_where_it_still_fails(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original, regraded = tmp_path / "run", tmp_path / "regraded"
    run(suite, original, server, SECOND)
    assert invoke("regrade", original, "--out", regraded, *judge_options(server, FIRST)).exit_code == 0
    old = {record["task_id"]: record for record in records(original)}
    new = {record["task_id"]: record for record in records(regraded)}
    ids = task_ids()
    assert old[ids[2]]["reward"] == 0 and new[ids[2]]["reward"] == 1, "the first judge passes task 2"
    assert "task_defects" in old[ids[2]] and "task_defects" not in new[ids[2]]
    assert new[ids[0]]["reward"] == 0 and new[ids[0]]["task_defects"] == old[ids[0]]["task_defects"]
    assert all(new[task]["user_findings"] == old[task]["user_findings"] is not None for task in old)


def test_regrade_by_the_same_judge_flips_nothing_and_a_panel_keeps_every_verdict(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original = tmp_path / "run"
    run(suite, original, server, FIRST)
    same = invoke("regrade", original, "--out", tmp_path / "same", *judge_options(server, FIRST))
    assert same.exit_code == 0 and "0 rewards changed" in same.output
    assert [r["reward"] for r in records(tmp_path / "same")] == [r["reward"] for r in records(original)]
    panel = invoke("regrade", original, "--out", tmp_path / "panel", *judge_options(server, SECOND, FIRST))
    assert panel.exit_code == 0, panel.output
    assert all([j["model"] for j in r["judges"]] == [SECOND, FIRST] for r in records(tmp_path / "panel"))
    assert failing_tasks(tmp_path / "panel") == task_ids()[:3]
    agreement = json.loads(invoke("report", tmp_path / "panel", "--json").output)["judges"]
    assert agreement["judges"] == [SECOND, FIRST] and len(agreement["disagreements"]) == 3


def test_a_regrade_with_the_cache_asks_the_judges_nothing_they_were_asked_before(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original, regraded, cache = tmp_path / "run", tmp_path / "regraded", tmp_path / "cache"
    arguments = [
        "run",
        "--suite",
        suite,
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--quiet",
        "--out",
        original,
    ]
    assert invoke(*arguments, "--cache", cache, *judge_options(server, FIRST)).exit_code == 0
    asked = server.request_count
    result = invoke("regrade", original, "--out", regraded, "--cache", cache, *judge_options(server, FIRST))
    assert result.exit_code == 0, result.output
    assert server.request_count == asked, "every judge answer came from the cache"
    judged = [record for record in records(regraded) if record.get("judge_usage")]
    assert len(judged) == 5
    assert all(r["judge_usage"]["cached_calls"] == r["judge_usage"]["calls"] == 1 for r in judged)
    assert [r["reward"] for r in records(regraded)] == [r["reward"] for r in records(original)]
    assert json.loads((regraded / "manifest.json").read_text())["config"]["cache"] == str(cache)


def test_regrade_refuses_bad_input_in_one_line(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original = tmp_path / "run"
    run(suite, original, server, FIRST)
    before = files(original)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    cases = [
        (
            ("regrade", tmp_path / "missing", "--out", tmp_path / "new", *judge_options(server, SECOND)),
            "not a run directory",
        ),
        (("regrade", original, "--out", taken, *judge_options(server, SECOND)), "not empty"),
        (
            ("regrade", original, "--out", original, *judge_options(server, SECOND)),
            "it is the run being regraded",
        ),
        (("regrade", original, "--out", tmp_path / "new"), "nothing to regrade with"),
        (("regrade", original, "--out", tmp_path / "new", "--judge-model", "openai/gpt-4o"), "api_key"),
        (
            ("regrade", original, "--out", tmp_path / "new", "--suite", suite, "--cache", tmp_path / "c"),
            "--cache goes with --judge-model",
        ),
    ]
    for arguments, message in cases:
        result = CliRunner().invoke(app, [str(argument) for argument in arguments])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert files(original) == before and (taken / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "new").exists()


def failing_judge(failing: set[int]) -> Any:
    """The judges' replies, but an HTTP 500 for every request about a task in `failing` (by index)."""

    def reply(request: ChatRequest) -> Reply:
        prompt = str(request.messages[-1]["content"])
        if any(f"handled task {task} well" in prompt for task in failing):
            return Reply.error(500, "the judge's server is down")
        return judge_reply(request)

    return reply


def test_a_judge_failing_on_some_simulations_records_them_as_infrastructure_errors(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original, regraded = tmp_path / "run", tmp_path / "regraded"
    run(suite, original, server, FIRST)
    with ScriptedOpenAIServer(failing_judge({1})) as failing:
        result = invoke(
            "regrade",
            original,
            "--out",
            regraded,
            *judge_options(failing, SECOND),
            "--judge-max-retries",
            "0",
        )
    assert result.exit_code == 0, result.output
    assert "4 of 5 simulations judged again" in result.stdout
    assert (
        "1 simulations whose judges failed are recorded as infrastructure errors (the most common (1 of 1): "
        "judge: InfrastructureError: "
    ) in result.stdout
    assert f"`tau2 run --resume --out {regraded}` runs them again" in result.stdout
    new = {record["task_id"]: record for record in records(regraded)}
    ids = task_ids()
    assert (
        new[ids[1]]["termination"] == "infrastructure_error"
        and "HTTP 500" in new[ids[1]]["termination_detail"]
    )
    assert new[ids[1]]["trajectory"] == records(original)[1]["trajectory"]  # the transcript is kept
    assert all(new[task]["termination"] != "infrastructure_error" for task in ids if task != ids[1])
    assert f"{ids[1]} trial 0" not in result.stdout  # a failed judge is no flip


def test_a_judge_failing_on_every_simulation_ends_in_one_line_with_exit_1(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    original, regraded = tmp_path / "run", tmp_path / "regraded"
    run(suite, original, server, FIRST)
    with ScriptedOpenAIServer(failing_judge(set(range(5)))) as failing:
        result = invoke(
            "regrade",
            original,
            "--out",
            regraded,
            *judge_options(failing, SECOND),
            "--judge-max-retries",
            "0",
        )
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: no simulation was judged again: 5 judge failures; the most common (5 of 5): judge: "
        "InfrastructureError: "
    ), result.stderr
    assert all(record["termination"] == "infrastructure_error" for record in records(regraded))


def test_a_judge_regrade_into_an_output_another_process_holds_is_refused(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    from tau2.runs import RunDirectoryLock

    original, regraded = tmp_path / "run", tmp_path / "regraded"
    run(suite, original, server, FIRST)
    with RunDirectoryLock(regraded) as held:
        held.acquire()
        result = invoke("regrade", original, "--out", regraded, *judge_options(server, SECOND))
        assert result.exit_code == 2
        assert result.stderr == f"error: {regraded}: another tau2 run is using this directory\n"
        assert regraded.is_dir() and not any(regraded.iterdir())


def test_an_episode_takes_several_judges(suite: Path, server: ScriptedOpenAIServer) -> None:
    arguments = ["episode", "--suite", str(suite), "--task-id", task_ids()[1], "--agent", "oracle"]
    result = invoke(*arguments, "--user", "scripted", "--json", *judge_options(server, FIRST, SECOND))
    assert result.exit_code == 0, result.output
    evaluation = json.loads(result.output)["evaluation"]
    assert [judge["model"] for judge in evaluation["judges"]] == [FIRST, SECOND]
    assert evaluation["reward"] == 0.0  # the first judge fails assertion 2, the second passes it


def test_a_resume_must_name_the_same_judges(
    suite: Path, tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    out = tmp_path / "two"
    run(suite, out, server, FIRST, SECOND)
    resume = ["run", "--resume", "--out", out, "--trials", "2"]
    other = invoke(*resume, *judge_options(server, FIRST, THIRD))
    assert other.exit_code == 2 and f"extra_judges.0.name ({SECOND} → {THIRD})" in other.output
    more = invoke(*resume, *judge_options(server, FIRST, SECOND, THIRD))
    assert more.exit_code == 2 and f"extra_judges ({SECOND} → {SECOND}, {THIRD})" in more.output
    same = invoke(*resume, "--quiet", *judge_options(server, FIRST, SECOND))
    assert same.exit_code == 0, same.output
    assert all(len(record["judges"]) == 2 for record in records(out)) and len(records(out)) == 10
