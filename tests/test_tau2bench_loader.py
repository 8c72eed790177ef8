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
from tau2.rundir import load_run

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
