"""A real τ²-bench results file (τ²-bench run on two telecom tasks with a small local model, trimmed of
its prose and endpoints) imports as a run whose rewards, terminations, turns and tokens are τ²-bench's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode._trajectory import EntryKind, TerminationReason
from tau2.interfaces._tau2bench_export import pass_k_percent
from tau2.runs._rundir import load_run
from tau2.world._tools import Side

RESULTS = Path(__file__).parent / "fixtures" / "tau2bench" / "smollm2_telecom_results.json"
CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason=f"τ²-bench telecom data not found in {CONFORMANCE}")
def test_real_results_file_imports_with_its_rewards(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = ["import", "tau2bench", str(RESULTS), "--out", str(out), "--data-dir", str(CONFORMANCE)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert "2 agree with the recorded reward, 0 disagree" in result.stdout
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
