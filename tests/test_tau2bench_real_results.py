"""Real τ²-bench results files import as runs whose rewards, terminations, turns and tokens are τ²-bench's:
a telecom run with a small local model, and airline and retail files whose trajectories τ²-bench's own
environment produced and its evaluator scored (`fixtures/tau2bench_gold_results.py`: gold runs, runs with
the last action left out or the information left unsaid, and runs whose calls share one message and
reused call ids)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tau.conformance import conformance_dir
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode import EntryKind, TerminationReason
from tau2.runs import load_run
from tau2.tasks import RewardType
from tau2.tau2bench_results import pass_k_percent
from tau2.world import Side

FIXTURES = Path(__file__).parent / "fixtures" / "tau2bench"
RESULTS = FIXTURES / "smollm2_telecom_results.json"


def import_file(results: Path, out: Path, data_dir: Path) -> str:
    command = ["import", "tau2bench", str(results), "--out", str(out), "--data-dir", str(data_dir)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_real_results_file_imports_with_its_rewards(tmp_path: Path) -> None:
    out = tmp_path / "run"
    output = import_file(RESULTS, out, conformance_dir("telecom"))
    assert "2 agree with the recorded reward, 0 disagree" in output
    document = json.loads(RESULTS.read_text(encoding="utf-8"))
    run = load_run(out)
    assert run.manifest.agent.label() == "tau2bench:openai/smollm2-135m"
    by_task = {record.task_id: record for record in run.records}
    for simulation in document["simulations"]:
        record = by_task[simulation["task_id"]]
        assert record.reward == simulation["reward_info"]["reward"]
        assert record.termination is TerminationReason.MAX_STEPS
        assert record.trajectory is not None
        texts = [entry.text for entry in record.trajectory.entries if entry.kind is EntryKind.MESSAGE]
        assert texts == [
            message["content"] for message in simulation["messages"] if message["role"] != "tool"
        ]
        tokens = sum(
            m["usage"]["prompt_tokens"]
            for m in simulation["messages"]
            if m.get("role") == "user" and m.get("usage")
        )
        assert record.usage[Side.USER].prompt_tokens == tokens
    rewards = [simulation["reward_info"]["reward"] for simulation in document["simulations"]]
    assert pass_k_percent(run.records)["pass_1"] == 100 * sum(rewards) / len(rewards)
    assert CliRunner().invoke(app, ["report", str(out)]).exit_code == 0


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_results_tau2bench_scored_import_with_its_verdicts(domain: str, tmp_path: Path) -> None:
    """Every simulation gets the reward τ²-bench gave it (passes judged on the database included), every
    replayed call its recorded outcome, and the run shows what each simulation changed."""
    results = FIXTURES / f"gold_{domain}_results.json"
    out = tmp_path / "run"
    output = import_file(results, out, conformance_dir(domain))
    document = json.loads(results.read_text(encoding="utf-8"))
    simulations = document["simulations"]
    calls = sum(len(m.get("tool_calls") or []) for s in simulations for m in s["messages"])
    assert f"{len(simulations)} agree with the recorded reward, 0 disagree" in output
    assert f"{calls} of {calls} replayed tool calls had the recorded outcome" in output
    records = {(record.task_id, record.trial): record for record in load_run(out).records}
    for simulation in simulations:
        record = records[simulation["task_id"], simulation["trial"]]
        assert record.reward == simulation["reward_info"]["reward"], simulation["id"]
    database_passes = [
        record
        for record in records.values()
        if record.reward == 1.0 and any(c.kind is RewardType.DB and c.gating for c in record.checks)
    ]
    assert any(record.state_changes for record in database_passes)
    assert {record.reward for record in records.values()} == {0.0, 1.0}
    assert "changes" in CliRunner().invoke(app, ["view", str(out), "--all"]).stdout


def test_a_call_whose_recorded_outcome_differs_is_named(tmp_path: Path) -> None:
    """Results pair with calls by position even where calls share an id, and a recorded result with the
    other outcome is named by simulation, message, call and tool."""
    results = FIXTURES / "gold_retail_results.json"
    document = json.loads(results.read_text(encoding="utf-8"))
    shared = next(s for s in document["simulations"] if s["id"] == "reused-ids-68")
    messages = shared["messages"]
    ids = [call["id"] for message in messages for call in message.get("tool_calls") or []]
    assert len(set(ids)) < len(ids)
    index = max(i for i, m in enumerate(messages) if m.get("tool_calls"))
    messages[index + 1]["error"] = not messages[index + 1]["error"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps({**document, "simulations": [shared]}), encoding="utf-8")
    output = import_file(edited, tmp_path / "run", conformance_dir("retail"))
    tool = messages[index]["tool_calls"][0]["name"]
    recorded, replayed = ("error", "success") if messages[index + 1]["error"] else ("success", "error")
    named = [line.strip() for line in output.splitlines() if "tool_calls[" in line]
    assert named == [
        f"reused-ids-68 messages[{index}].tool_calls[0] {tool}: recorded {recorded}, replayed {replayed}"
    ]
