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
from tau2.runs import load_run
from tau2.tau2bench_results import pass_k_percent

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


CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
GOLD_SCRIPT = Path(__file__).parent / "fixtures" / "tau2bench_gold_results.py"


@pytest.mark.skipif(TAU2BENCH_PYTHON is None, reason="TAU2BENCH_PYTHON (a Python with τ²-bench) is not set")
@pytest.mark.parametrize(
    ("domain", "tasks"), [("telecom", None), ("airline", "5,7,23"), ("retail", "2,13,46")]
)
def test_trajectories_tau2bench_produced_import_with_its_rewards(
    domain: str, tasks: str | None, tmp_path: Path
) -> None:
    """τ²-bench runs the gold actions of its tasks (and variants cut short, left unsaid, with parallel
    calls and reused call ids) and scores them; the import replays them in our world with the same
    outcome for every call and the same reward, and pass^1 equals τ²-bench's."""
    assert TAU2BENCH_PYTHON is not None
    data_dir = CONFORMANCE / f"tau2-{domain}"
    if not data_dir.is_dir():
        pytest.skip(f"τ²-bench {domain} data not found in {data_dir}")
    results = tmp_path / "gold.json"
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    selection = ["--tasks", tasks] if tasks else []
    subprocess.run(
        [TAU2BENCH_PYTHON, str(GOLD_SCRIPT), domain, str(results), *selection, "--variants"],
        capture_output=True,
        cwd=tmp_path,
        env=environment,
        timeout=600,
        check=True,
    )
    runner = CliRunner()
    out = tmp_path / "imported"
    command = ["import", "tau2bench", str(results), "--out", str(out), "--data-dir", str(data_dir)]
    imported = runner.invoke(app, command)
    assert imported.exit_code == 0, imported.output
    assert ", 0 disagree;" in imported.stdout
    calls = imported.stdout.split("; ")[-1].split()
    assert calls[0] == calls[2]  # "N of N replayed tool calls …"
    records = load_run(out).records
    assert {record.reward for record in records} == {0.0, 1.0}
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
    assert pass_k_percent(records)["pass_1"] == pytest.approx(100 * theirs["1"], abs=0.01)
