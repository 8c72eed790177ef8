"""Our exported results read by τ²-bench itself: its `Results.load` and its own pass^k.

τ²-bench's package is also called `tau2`, so it cannot share our interpreter: point `TAU2BENCH_PYTHON` at
the Python of an environment where τ²-bench is installed. Without it the test is skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.interfaces._tau2bench_export import pass_k_percent
from tau2.runs._rundir import load_run

TAU2BENCH_PYTHON = os.environ.get("TAU2BENCH_PYTHON")
LOAD_AND_SCORE = """
import json, sys
from pathlib import Path
from tau2.data_model.simulation import Results
from tau2.metrics.agent_metrics import compute_metrics
results = Results.load(Path(sys.argv[1]))
metrics = compute_metrics(results)
print(json.dumps({"simulations": len(results.simulations), "pass_hat_ks": metrics.pass_hat_ks}))
"""


@pytest.mark.skipif(TAU2BENCH_PYTHON is None, reason="TAU2BENCH_PYTHON (a Python with τ²-bench) is not set")
@pytest.mark.parametrize(
    "options",
    [
        ["--domain", "mock", "--agent", "transfer", "--user", "scripted", "--trials", "3"],
        ["--domain", "mock", "--mode", "solo", "--agent", "null", "--trials", "2"],
    ],
    ids=["transfer", "solo"],
)
def test_tau2bench_loads_our_export_and_agrees_on_pass_k(options: list[str], tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["run", *options, "-q", "--out", str(tmp_path / "r")]).exit_code == 0
    out = tmp_path / "results.json"
    assert runner.invoke(app, ["export", "tau2bench", str(tmp_path / "r"), "-o", str(out)]).exit_code == 0
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    assert TAU2BENCH_PYTHON is not None
    completed = subprocess.run(
        [TAU2BENCH_PYTHON, "-c", LOAD_AND_SCORE, str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=300,
        check=True,
    )
    theirs = json.loads(completed.stdout.strip().splitlines()[-1])
    records = load_run(tmp_path / "r").records
    assert theirs["simulations"] == len(records)
    ours = pass_k_percent(records)
    for k, value in theirs["pass_hat_ks"].items():
        assert ours[f"pass_{k}"] == pytest.approx(100 * value, abs=0.01)


CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
GOLD_SCRIPT = Path(__file__).parent / "fixtures" / "tau2bench_gold_results.py"
BROKEN = ["[mobile_data_issue]data_mode_off[PERSONA:None]", "[service_issue]airplane_mode_on[PERSONA:None]"]


@pytest.mark.skipif(TAU2BENCH_PYTHON is None, reason="TAU2BENCH_PYTHON (a Python with τ²-bench) is not set")
@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason=f"τ²-bench telecom data not found in {CONFORMANCE}")
def test_trajectories_tau2bench_produced_import_with_its_rewards(tmp_path: Path) -> None:
    """τ²-bench runs the gold actions of its telecom tasks (two of them cut short) and scores them; the
    import replays them in our world with the same outcome for every call and the same reward."""
    assert TAU2BENCH_PYTHON is not None
    results = tmp_path / "gold.json"
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    subprocess.run(
        [TAU2BENCH_PYTHON, str(GOLD_SCRIPT), str(results), "--drop-last-user-action", *BROKEN],
        capture_output=True,
        cwd=tmp_path,
        env=environment,
        timeout=600,
        check=True,
    )
    runner = CliRunner()
    out = tmp_path / "imported"
    command = ["import", "tau2bench", str(results), "--out", str(out), "--data-dir", str(CONFORMANCE)]
    imported = runner.invoke(app, command)
    assert imported.exit_code == 0, imported.output
    assert "20 agree with the recorded reward, 0 disagree" in imported.stdout
    records = {record.task_id: record for record in load_run(out).records}
    assert {task for task, record in records.items() if record.reward == 0.0} == set(BROKEN)
    assert imported.stdout.rstrip().endswith("replayed tool calls had the recorded outcome")
    calls = imported.stdout.split("; ")[-1].split()
    assert calls[0] == calls[2]  # "N of N replayed tool calls …"
    scored = subprocess.run(
        [TAU2BENCH_PYTHON, "-c", LOAD_AND_SCORE, str(results)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=300,
        check=True,
    )
    theirs = json.loads(scored.stdout.strip().splitlines()[-1])["pass_hat_ks"]
    assert pass_k_percent(list(records.values()))["pass_1"] == pytest.approx(100 * theirs["1"], abs=0.01)
