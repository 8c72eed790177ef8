"""τ²-bench interoperability: runs exported as results files and imported back keep every reward, pass^k
follows τ²-bench's formula, and bad inputs fail on one line without touching existing directories."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from math import comb
from pathlib import Path
from typing import Any

import pytest
from tau.conformance import conformance_dir
from typer.testing import CliRunner

from tau2.cli import GROUPS, app
from tau2.runs import load_run
from tau2.stepping import domain_suites
from tau2.tau2bench_results import load_import
from tau2.tau2bench_results._format import Results
from tau2.world import Side

runner = CliRunner()


def cli(*arguments: str) -> str:
    result = runner.invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


def rewards(run_dir: Path) -> dict[tuple[str, int], tuple[float, str]]:
    return {(r.task_id, r.trial): (r.reward, r.termination.value) for r in load_run(run_dir).records}


@pytest.mark.parametrize(
    "options",
    [
        ["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--trials", "2"],
        ["--domain", "mock", "--agent", "null", "--user", "scripted"],
        ["--domain", "mock", "--agent", "transfer", "--user", "scripted"],
        ["--domain", "mock", "--mode", "solo", "--agent", "oracle"],
        ["--suite", str(domain_suites("telecom")["small"]), "--agent", "oracle", "--user", "scripted"],
    ],
    ids=["oracle", "null", "transfer", "solo", "telecom"],
)
def test_export_then_import_keeps_every_reward(options: list[str], tmp_path: Path) -> None:
    cli("run", *options, "--quiet", "--out", str(tmp_path / "ours"))
    cli("export", "tau2bench", str(tmp_path / "ours"), "-o", str(tmp_path / "results.json"))
    Results.model_validate_json((tmp_path / "results.json").read_text(encoding="utf-8"))
    output = cli("import", "tau2bench", str(tmp_path / "results.json"), "--out", str(tmp_path / "back"))
    assert "0 disagree" in output
    assert rewards(tmp_path / "back") == rewards(tmp_path / "ours")
    imported = load_import(tmp_path / "back")
    assert imported is not None and not imported.disagreements()
    assert all(not simulation.mismatches for simulation in imported.simulations)
    cli("report", str(tmp_path / "back"))


def test_exported_messages_pair_each_tool_call_with_its_result(tmp_path: Path) -> None:
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "-q",
        "--out",
        str(tmp_path / "r"),
    )
    cli("export", "tau2bench", str(tmp_path / "r"), "-o", str(tmp_path / "results.json"))
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert document["info"]["environment_info"]["domain_name"] == "mock"
    for simulation in document["simulations"]:
        messages = simulation["messages"]
        assert messages[0]["role"] == "assistant"
        assert messages[0]["content"] == "Hi! How can I help you today?"
        assert [message["turn_idx"] for message in messages] == list(range(len(messages)))
        for index, message in enumerate(messages):
            calls = message.get("tool_calls") or []
            following = messages[index + 1 : index + 1 + len(calls)]
            assert [m.get("id") for m in following] == [call["id"] for call in calls]
            assert all(m["role"] == "tool" and m["requestor"] == message["role"] for m in following)


def test_submission_reports_pass_k_as_tau2bench_computes_it(tmp_path: Path) -> None:
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "transfer",
        "--user",
        "scripted",
        "--trials",
        "3",
        "-q",
        "--out",
        str(tmp_path / "r"),
    )
    cli(
        "export", "tau2bench", str(tmp_path / "r"), "-o", str(tmp_path / "results.json"),
        "--submission", str(tmp_path / "submission.json"), "--organization", "Acme", "--model-name", "m",
        "--custom",
    )  # fmt: skip
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    submission = json.loads((tmp_path / "submission.json").read_text(encoding="utf-8"))
    by_task: dict[str, list[float]] = {}
    for simulation in document["simulations"]:
        by_task.setdefault(simulation["task_id"], []).append(simulation["reward_info"]["reward"])
    for k in (1, 2, 3):
        expected = sum(comb(sum(r == 1.0 for r in rs), k) / comb(len(rs), k) for rs in by_task.values())
        assert submission["results"]["mock"][f"pass_{k}"] == round(100 * expected / len(by_task), 2)
    assert submission["results"]["mock"]["pass_4"] is None
    assert (submission["model_name"], submission["model_organization"]) == ("m", "Acme")


def test_a_recorded_reward_that_differs_is_listed(tmp_path: Path) -> None:
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "-q",
        "--out",
        str(tmp_path / "r"),
    )
    cli("export", "tau2bench", str(tmp_path / "r"), "-o", str(tmp_path / "results.json"))
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    document["simulations"][0]["reward_info"]["reward"] = 0.0
    (tmp_path / "results.json").write_text(json.dumps(document), encoding="utf-8")
    output = cli("import", "tau2bench", str(tmp_path / "results.json"), "--out", str(tmp_path / "back"))
    task_id = document["simulations"][0]["task_id"]
    assert "4 agree with the recorded reward, 1 disagree" in output
    assert f"{task_id} trial 0: recorded 0.0, ours 1.0" in output
    terminal = cli("report", str(tmp_path / "back"), "--html", str(tmp_path / "report.html"))
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    simulation_id = document["simulations"][0]["id"]
    for shown in (terminal, page):  # the HTML report shows the agreement section the terminal shows
        assert "Recorded by τ²-bench" in shown and simulation_id in shown


def test_bad_input_fails_on_one_line_and_never_overwrites(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"info": {}, "tasks": []}', encoding="utf-8")
    result = runner.invoke(app, ["import", "tau2bench", str(bad), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and result.stderr.startswith(f"error: {bad}: info.git_commit")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine", encoding="utf-8")
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "-q",
        "--out",
        str(tmp_path / "r"),
    )
    cli("export", "tau2bench", str(tmp_path / "r"), "-o", str(tmp_path / "results.json"))
    result = runner.invoke(
        app, ["import", "tau2bench", str(tmp_path / "results.json"), "--out", str(occupied)]
    )
    assert result.exit_code == 2 and "not empty" in result.stderr
    assert [path.name for path in occupied.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("group", [group for group in GROUPS if group != "experiment"])
def test_group_help_lists_its_formats(group: str) -> None:
    output = cli(group, "--help")
    assert "tau2bench" in output


@pytest.mark.parametrize(
    ("termination", "detail", "expected"),
    [
        ("actor_error", "user actor: bad JSON", "user_error"),
        ("actor_error", "agent actor: bad JSON", "agent_error"),
        ("transfer", None, "user_stop"),
        ("context_overflow", None, "context_window_exceeded"),
    ],
)
def test_terminations_use_tau2bench_words(termination: str, detail: str | None, expected: str) -> None:
    from tau2.runs import SimulationRecord
    from tau2.tau2bench_results._export import _termination

    record = SimulationRecord(
        task_id="t", trial=0, seed=0, mode="interactive", reward=0.0, termination=termination,
        termination_detail=detail,
    )  # fmt: skip
    assert _termination(record) == expected


def test_an_imported_run_compares_with_ours(tmp_path: Path) -> None:
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "-q",
        "--out",
        str(tmp_path / "a"),
    )
    cli(
        "run", "--domain", "mock", "--agent", "null", "--user", "scripted", "-q", "--out", str(tmp_path / "b")
    )
    cli("export", "tau2bench", str(tmp_path / "b"), "-o", str(tmp_path / "b.json"))
    cli("import", "tau2bench", str(tmp_path / "b.json"), "--out", str(tmp_path / "imported"))
    output = cli("compare", str(tmp_path / "a"), str(tmp_path / "imported"))
    assert "tau2bench" in output


def test_export_never_replaces_a_file(tmp_path: Path) -> None:
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "-q",
        "--out",
        str(tmp_path / "r"),
    )
    existing = tmp_path / "results.json"
    existing.write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["export", "tau2bench", str(tmp_path / "r"), "-o", str(existing)])
    assert result.exit_code == 2 and "already exists" in result.stderr
    assert existing.read_text(encoding="utf-8") == "mine"


def test_a_model_run_keeps_its_token_usage_through_the_round_trip(tmp_path: Path) -> None:
    """LLM seats (the scripted OpenAI-compatible server): every model turn becomes one τ²-bench message
    carrying its usage, so the import sums the same calls and tokens per seat."""
    from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedToolCall

    agent = [
        Reply.tool_call("get_account", {"customer": "Ada"}),
        Reply.parallel_tool_calls(
            [
                ScriptedToolCall(name="enable_power", arguments={"customer": "Ada"}),
                ScriptedToolCall(name="get_account", arguments={"customer": "Ada"}),
            ]
        ),
        Reply.text("Power is back on. Please plug your lamp in."),
        Reply.text("Your issue is resolved."),
    ]
    user = [
        Reply.text("My lamp is dark."),
        Reply.tool_call("plug_in"),
        Reply.text("It is lit."),
        Reply.tool_call("end_call"),
    ]

    def reply(request: ChatRequest) -> Reply:
        turns = sum(message["role"] == "assistant" for message in request.messages)
        return user[turns] if "end_call" in request.tool_names else agent[turns - 1]

    with ScriptedOpenAIServer(reply) as server:
        seats = []
        for seat in ("agent", "user"):
            seats += [f"--{seat}", "llm", f"--{seat}-model", "openai/tau2-test-model"]
            seats += [f"--{seat}-api-base", server.base_url, f"--{seat}-arg", "api_key=sk-test"]
        cli("run", "--domain", "mock", "--task-ids", "both", *seats, "-q", "--out", str(tmp_path / "r"))
    cli("export", "tau2bench", str(tmp_path / "r"), "-o", str(tmp_path / "results.json"))
    cli("import", "tau2bench", str(tmp_path / "results.json"), "--out", str(tmp_path / "back"))
    (ours,) = load_run(tmp_path / "r").records
    (back,) = load_run(tmp_path / "back").records
    assert ours.reward == back.reward == 1.0
    assert ours.usage[Side.AGENT].calls == 4 and ours.usage[Side.AGENT].prompt_tokens > 0
    assert back.usage == ours.usage
    (simulation,) = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["simulations"]
    priced = [m for m in simulation["messages"] if m["role"] == "assistant" and "usage" in m]
    assert len(priced) == 4 and all("cost" in m and m["usage"]["prompt_tokens"] > 0 for m in priced)


AIRLINE_DATA = Path(__file__).resolve().parents[1] / "domains" / "airline" / "data"


def airline_run(tmp_path: Path, policy: str, agent: str = "oracle") -> tuple[Path, Path]:
    """A run of our airline tasks on a copy of the airline data whose policy reads `policy`."""
    data = tmp_path / f"data-{agent}"
    shutil.copytree(AIRLINE_DATA, data)
    (data / "policy.md").write_text(policy, encoding="utf-8")
    run_dir, suite = tmp_path / f"run-{agent}", tmp_path / f"tasks-{agent}.json"
    shutil.copy(data / "tasks.json", suite)
    cli(
        "run", "--suite", str(suite), "--data-dir", str(data), "--agent", agent,
        "--user", "scripted", "-q", "--out", str(run_dir),
    )  # fmt: skip
    return run_dir, data


def test_export_writes_the_policy_the_run_used(tmp_path: Path) -> None:
    """The agent read the data directory's policy, so the export says so; once that text is gone (the
    directory moved), the export refuses rather than write another policy under the run's name."""
    policy = "# Airline policy of this study\n\nBe brief.\n"
    run_dir, data = airline_run(tmp_path, policy)
    cli("export", "tau2bench", str(run_dir), "-o", str(tmp_path / "results.json"))
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert document["info"]["environment_info"]["policy"] == policy
    data.rename(tmp_path / "moved")
    again = [
        sys.executable,
        "-m",
        "tau2",
        "export",
        "tau2bench",
        str(run_dir),
        "-o",
        str(tmp_path / "again.json"),
    ]
    result = subprocess.run(
        again, capture_output=True, text=True, timeout=120, check=False
    )  # a fresh process
    assert result.returncode == 2 and "no longer" in result.stderr
    assert not (tmp_path / "again.json").exists()


def test_export_writes_the_checks_and_message_details_tau2bench_shows(tmp_path: Path) -> None:
    """`reward_info` carries the database and communication checks and the reward breakdown; every
    message its position (`turn_idx`) and time."""
    run_dir, _ = airline_run(tmp_path, "# Policy\n", agent="null")
    cli("export", "tau2bench", str(run_dir), "-o", str(tmp_path / "results.json"))
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    Results.model_validate(document)
    records = {record.task_id: record for record in load_run(run_dir).records}
    for simulation in document["simulations"]:
        reward = simulation["reward_info"]
        record = records[simulation["task_id"]]
        database = next(check for check in record.checks if check.kind.value == "DB")
        assert reward["db_check"] == {"db_match": database.passed, "db_reward": float(bool(database.passed))}
        assert set(reward["reward_breakdown"]) == set(reward["reward_basis"])
        assert all(reward["reward_breakdown"].values()) == (reward["reward"] == 1.0)
        told = [check for check in record.checks if check.kind.value == "COMMUNICATE"]
        assert [(c["info"], c["met"]) for c in reward.get("communicate_checks", [])] == [
            (check.item, check.passed) for check in told
        ]
        messages = simulation["messages"]
        assert [message["turn_idx"] for message in messages] == list(range(len(messages)))
        times = [datetime.fromisoformat(message["timestamp"]) for message in messages]
        assert times == sorted(times)
    assert any("communicate_checks" in s["reward_info"] for s in document["simulations"])


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A τ²-bench results file of a small offline mock run, as a document to edit."""
    root = tmp_path_factory.mktemp("exported")
    cli("run", "--domain", "mock", "--agent", "oracle", "--user", "scripted", "-q", "--out", str(root / "r"))
    cli("export", "tau2bench", str(root / "r"), "-o", str(root / "results.json"))
    document: dict[str, Any] = json.loads((root / "results.json").read_text(encoding="utf-8"))
    return document


def edited_text(document: dict[str, Any], old: str, new: str) -> str:
    text = json.dumps(document)
    assert old in text
    return text.replace(old, new, 1)


def replaced(old: str, new: str) -> Callable[[dict[str, Any]], str]:
    return lambda document: edited_text(document, old, new)


def as_json(part: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], str]:
    return lambda document: json.dumps(part(document))


HUGE = "1" + "0" * 30
REFUSED = {
    "nan": (replaced('"duration": ', '"duration": NaN, "x": '), "NaN is not a JSON number"),
    "infinity": (replaced('"duration": ', '"duration": -Infinity, "x": '), "Infinity is not a JSON number"),
    "overflow": (replaced('"duration": ', '"duration": 1e309, "x": '), "a number too large for a float"),
    "huge-trial": (replaced('"trial": 0', f'"trial": {HUGE}'), "an integer beyond 64 bits"),
    "large-trial": (replaced('"trial": 0', '"trial": 1000000000000'), "simulations[0].trial: 1000000000000"),
    "negative-trial": (replaced('"trial": 0', '"trial": -1'), "simulations[0].trial: -1"),
    "deep": (
        replaced('"duration": ', f'"duration": {"[" * 300}{"]" * 300}, "x": '),
        "levels deep (a results file",
    ),
    "task-list": (as_json(lambda d: d["tasks"]), "a JSON list of tasks (a task file: run it with"),
    "simulation-list": (as_json(lambda d: d["simulations"]), "a JSON list of simulations, without the run's"),
    "json-lines": (
        lambda d: "\n".join(json.dumps(s) for s in d["simulations"]),
        "JSON Lines (one JSON value",
    ),
    "metrics": (as_json(lambda d: {"avg_reward": 0.5, "pass_hat_ks": {"1": 0.5}}), "τ²-bench's metrics"),
    "no-simulations": (
        as_json(lambda d: {**d, "simulations": []}),
        "simulations: the file holds no simulations",
    ),
    "no-tasks": (as_json(lambda d: {"info": d["info"]}), "tasks: missing"),
    "truncated": (lambda d: json.dumps(d)[:-40], "the JSON ends early"),
    "empty": (lambda d: "", "the file is empty"),
}


@pytest.mark.parametrize(("edit", "expected"), REFUSED.values(), ids=REFUSED.keys())
def test_what_a_run_cannot_hold_is_refused_in_one_line(
    exported: dict[str, Any], edit: Callable[[dict[str, Any]], str], expected: str, tmp_path: Path
) -> None:
    source = tmp_path / "results.json"
    source.write_text(edit(exported), encoding="utf-8")
    result = runner.invoke(app, ["import", "tau2bench", str(source), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {source}: ") and expected in lines[0], lines
    assert not (tmp_path / "run").exists()


def test_a_repeated_task_and_trial_is_renumbered_with_a_warning(
    exported: dict[str, Any], tmp_path: Path
) -> None:
    document = json.loads(json.dumps(exported))
    first = document["simulations"][0]
    document["simulations"] += [{**first, "id": "again-1"}, {**first, "id": "again-2"}]
    source = tmp_path / "results.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["import", "tau2bench", str(source), "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    count = len(document["simulations"])
    task = first["task_id"]
    again = f"task {task!r} trial 0 appears again; imported as trial"
    assert result.stderr.splitlines() == [
        f"warning: {source}: simulations[{count - 2}]: {again} 1",
        f"warning: {source}: simulations[{count - 1}]: {again} 2",
    ]
    run = load_run(tmp_path / "run")
    assert run.manifest.trials == 3 and not run.warnings
    assert sorted(record.trial for record in run.records if record.task_id == task) == [0, 1, 2]
    assert runner.invoke(app, ["report", str(tmp_path / "run")]).exit_code == 0


@pytest.mark.parametrize(("domain", "task_ids"), [("airline", "7,11,23"), ("retail", "2,13,46")])
def test_a_round_trip_on_tau2bench_data_keeps_every_database_judged_reward(
    domain: str, task_ids: str, tmp_path: Path
) -> None:
    """Our oracle on τ²-bench's tasks and data passes on the database check; imported with the same data,
    every simulation passes again (judged on that data, not the domain's own)."""
    data = conformance_dir(domain)
    cli(
        "run", "--suite", str(data / "tasks.json"), "--data-dir", str(data), "--task-ids", task_ids,
        "--agent", "oracle", "--user", "scripted", "-q", "--out", str(tmp_path / "ours"),
    )  # fmt: skip
    cli("export", "tau2bench", str(tmp_path / "ours"), "-o", str(tmp_path / "results.json"))
    output = cli(
        "import",
        "tau2bench",
        str(tmp_path / "results.json"),
        "--out",
        str(tmp_path / "back"),
        "--data-dir",
        str(data),
    )
    assert "3 agree with the recorded reward, 0 disagree" in output
    assert rewards(tmp_path / "back") == rewards(tmp_path / "ours")
    assert {reward for reward, _ in rewards(tmp_path / "back").values()} == {1.0}
