"""The model cache in runs and experiments (`--cache DIR`): an experiment against the scripted server run
again with the cache sends no request (counted at the server) and writes the records of the first run, on
every executor; the report shows the answers from the cache and what they saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_runner_cli import untimed
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.experiments import load_experiment
from tau2.runs import read_records
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

USAGE = ScriptedUsage(prompt_tokens=2_000, completion_tokens=100)
AGENT = (
    Reply.tool_call("get_account", {"customer": "Ada"}, usage=USAGE),
    Reply.tool_call("enable_power", {"customer": "Ada"}, usage=USAGE),
    Reply.text("Power is back on. Please plug your lamp in.", usage=USAGE),
    Reply.text("Your issue is resolved.", usage=USAGE),
)
USER = (
    Reply.text("My lamp is dark.", usage=USAGE),
    Reply.tool_call("plug_in", usage=USAGE),
    Reply.text("I plugged it in and it is lit now.", usage=USAGE),
    Reply.tool_call("end_call", usage=USAGE),
)
EXECUTORS = {"local": [], "workers": ["--workers", "2"], "ray": ["--ray", "local", "--workers", "2"]}
ARMS = ("mini", "large")


def both_seats(request: ChatRequest) -> Reply:
    """Plays the agent and the user of the mock task `both` (the user is the seat with `end_call`)."""
    replies = sum(message["role"] == "assistant" for message in request.messages)
    return USER[replies] if "end_call" in request.tool_names else AGENT[replies - 1]


def experiment_file(tmp_path: Path, base_url: str) -> Path:
    """Two arms of LLM agents (priced models) with an LLM user, over three copies of the task `both`."""
    suite = tmp_path / "suite.json"
    tasks = [BOTH.model_copy(update={"id": f"both-{number}"}) for number in range(3)]
    Suite(name="cached", domain="mock", tasks=tasks).save(suite)

    def seat(model: str) -> str:
        spec = f'name = "{model}", api_base = "{base_url}", args = {{ api_key = "sk-x" }}'
        return f'{{ kind = "llm", model = {{ {spec} }} }}'

    path = tmp_path / "exp.toml"
    path.write_text(
        f'name = "cached"\nbaseline = "mini"\n[base]\nsuite = "{suite}"\n'
        "trials = 2\nseed = 3\nconcurrency = 4\n"
        f"user = {seat('openai/gpt-4o-mini')}\n"
        f'[[arms]]\nname = "mini"\nagent = {seat("openai/gpt-4o-mini")}\n'
        f'[[arms]]\nname = "large"\nagent = {seat("openai/gpt-4o")}\n'
    )
    return path


def without_cache_counts(value: Any) -> Any:
    """A record's data without the model cache's counts (the one thing a cached rerun changes)."""
    if isinstance(value, dict):
        return {
            k: without_cache_counts(v) for k, v in value.items() if k not in ("cached_calls", "cached_cost")
        }
    if isinstance(value, list):
        return [without_cache_counts(item) for item in value]
    return value


def arm_records(out: Path, arm: str) -> dict[tuple[str, int], dict[str, Any]]:
    records, warnings = read_records(out / arm / "results.jsonl")
    assert warnings == [] and len(records) == 6
    return {(r.task_id, r.trial): untimed(r) for r in records}


@pytest.mark.parametrize("executor", list(EXECUTORS))
def test_an_experiment_run_again_with_the_cache_asks_nothing_and_writes_the_same_records(
    tmp_path: Path, executor: str
) -> None:
    if executor == "ray":
        pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    cache = tmp_path / "cache"
    with ScriptedOpenAIServer(both_seats) as server:
        exp = experiment_file(tmp_path, server.base_url)
        runs = []
        for session in ("first", "again"):
            out = tmp_path / session
            options = ["--out", str(out), "--quiet", "--cache", str(cache), *EXECUTORS[executor]]
            result = CliRunner().invoke(app, ["experiment", "run", str(exp), *options])
            assert result.exit_code == 0, result.output
            runs.append((out, server.request_count, result.stdout))
    (first, asked, _), (again, asked_again, summary) = runs
    assert asked > 0 and asked_again == asked, "the second run made no request"
    for arm in ARMS:
        before, after = arm_records(first, arm), arm_records(again, arm)
        assert without_cache_counts(after) == without_cache_counts(before)
        for data in after.values():
            assert all(usage["cached_calls"] == usage["calls"] > 0 for usage in data["usage"].values())
    status = load_experiment(again).status
    assert status is not None and status.cost_usd == 0.0, "a cached answer costs nothing"
    assert "calls from the cache" in summary and "saved)" in summary


def test_the_report_shows_the_answers_from_the_cache_and_what_they_saved(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with ScriptedOpenAIServer(both_seats) as server:
        exp = experiment_file(tmp_path, server.base_url)
        for session in ("first", "again"):
            options = ["--out", str(tmp_path / session), "--quiet", "--cache", str(cache)]
            assert CliRunner().invoke(app, ["experiment", "run", str(exp), *options]).exit_code == 0
    fresh = json.loads(CliRunner().invoke(app, ["report", str(tmp_path / "first" / "mini"), "--json"]).stdout)
    cached = json.loads(
        CliRunner().invoke(app, ["report", str(tmp_path / "again" / "mini"), "--json"]).stdout
    )
    for seat in cached["usage"]:
        original = next(line for line in fresh["usage"] if line["seat"] == seat["seat"])
        assert seat["cached_calls"] == seat["calls"] == original["calls"] > 0
        assert seat["cached_cost"] == pytest.approx(seat["cost"]) and seat["cost"] == pytest.approx(
            original["cost"]
        )
    terminal = CliRunner().invoke(app, ["report", str(tmp_path / "again" / "mini")])
    assert terminal.exit_code == 0
    calls = sum(seat["cached_calls"] for seat in cached["usage"])
    saved = sum(seat["cached_cost"] for seat in cached["usage"])
    assert f"{calls} model answers from the cache (${saved:,.4f} saved)" in terminal.stdout
    full = CliRunner().invoke(app, ["report", str(tmp_path / "again" / "mini"), "--full"])
    assert "from cache" in full.stdout


def test_a_run_refuses_a_cache_of_another_format_before_writing_anything(
    suite_file: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tau2-model-cache.json").write_text('{"format": 99, "tau2": "9.9.9"}')
    out = tmp_path / "run"
    arguments = [
        "run",
        "--suite",
        str(suite_file),
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(app, [*arguments, "--cache", str(cache)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {cache}: a model cache of format 99 (written by tau2 9.9.9); this tau2 reads format 1: give "
        "another --cache directory\n"
    )
    assert not out.exists()
