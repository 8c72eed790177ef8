"""Planning trials (`tau2 experiment plan`): the power of the exact McNemar test under the proportional
model, checked against seeded Monte-Carlo experiments, the fewest trials that reach a power, and the
command on the shipped example with a stated rate and with a pilot run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.experiments import arm_rates, mcnemar_power, trials_needed
from tau2.metrics import mcnemar_p_value

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "oracle-vs-transfer.toml"
U_SHAPED = np.random.default_rng(0).beta(0.6, 0.6, 120)
"""Per-task rates shaped like τ²-bench's: most tasks always or never pass."""


def simulated_power(rates: np.ndarray, trials: int, delta: float, alpha: float, experiments: int) -> float:
    """The share of seeded simulated experiments (each task of `rates` once, `trials` paired units each,
    outcomes independent given the task) whose exact McNemar test rejects at `alpha`."""
    rng = np.random.default_rng(7)
    arm = arm_rates(rates, delta)
    assert arm is not None
    rejected = 0
    for _ in range(experiments):
        base = rng.random((rates.size, trials)) < rates[:, None]
        other = rng.random((rates.size, trials)) < arm[:, None]
        rejected += mcnemar_p_value(int((~base & other).sum()), int((base & ~other).sum())) <= alpha
    return rejected / experiments


@pytest.mark.parametrize(
    ("rates", "trials", "delta"),
    [(U_SHAPED, 1, -0.1), (U_SHAPED, 3, -0.05), (U_SHAPED, 2, 0.08), (np.full(50, 0.7), 2, -0.1)],
)
def test_the_power_agrees_with_simulated_experiments(rates: np.ndarray, trials: int, delta: float) -> None:
    computed = mcnemar_power(rates, rates.size, trials, delta, 0.05)
    simulated = simulated_power(rates, trials, delta, 0.05, 1500)
    assert abs(computed - simulated) < 0.04  # about three standard errors of 1,500 experiments


def test_without_a_difference_the_power_is_the_tests_size() -> None:
    assert mcnemar_power(U_SHAPED, 120, 4, 0.0, 0.05) <= 0.05
    assert mcnemar_power(U_SHAPED, 120, 4, -0.9, 0.05) == 0.0  # a loss larger than the mean rate


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20), st.floats(-0.5, 0.5))
def test_the_arm_rates_move_the_mean_by_delta_and_stay_rates(rates: list[float], delta: float) -> None:
    moved = arm_rates(rates, delta)
    mean = float(np.mean(rates))
    if moved is None:
        assert -delta > mean or delta > 1.0 - mean
    else:
        assert np.all((moved >= -1e-12) & (moved <= 1 + 1e-12))
        assert float(np.mean(moved)) - mean == pytest.approx(delta, abs=1e-9)


def test_the_trials_needed_are_the_fewest_that_reach_the_power() -> None:
    needed = trials_needed(U_SHAPED, 120, -0.05, 0.8, 0.05, 1000)
    assert needed is not None and needed > 1
    assert mcnemar_power(U_SHAPED, 120, needed, -0.05, 0.05) >= 0.8
    assert mcnemar_power(U_SHAPED, 120, needed - 1, -0.05, 0.05) < 0.8
    assert trials_needed(np.full(10, 0.5), 10, -0.01, 0.8, 0.05, 8) is None


def test_plan_with_a_stated_rate_prints_the_trials_per_task() -> None:
    result = runner.invoke(app, ["experiment", "plan", str(EXAMPLE), "--rate", "0.6", "--delta", "0.05"])
    assert result.exit_code == 0, result.output
    expected = trials_needed([0.6], 159, -0.05, 0.8, 0.05, 1000)
    assert expected is not None
    assert f"set [base] trials = {expected}" in result.stdout
    assert "159 tasks, 2 arms" in result.stdout


def test_plan_from_a_pilot_run(tmp_path: Path) -> None:
    pilot = tmp_path / "pilot"
    arguments = ["run", "--domain", "telecom", "--agent", "transfer", "--user", "scripted", "--quiet"]
    made = runner.invoke(app, [*arguments, "--out", str(pilot)])
    assert made.exit_code == 0, made.output
    result = runner.invoke(app, ["experiment", "plan", str(EXAMPLE), "--pilot", str(pilot), "--delta", "0.1"])
    assert result.exit_code == 0, result.output
    assert "from the pilot" in result.stdout and "(159 tasks with valid trials)" in result.stdout
    assert "a loss of 0.1 pass^1" in result.stdout and "a gain of 0.1 pass^1" in result.stdout


def test_plan_refuses_without_rates_and_bad_options_in_one_line(tmp_path: Path) -> None:
    for arguments in ([], ["--rate", "0.5", "--pilot", str(tmp_path)], ["--pilot", str(tmp_path)]):
        result = runner.invoke(app, ["experiment", "plan", str(EXAMPLE), *arguments])
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, (arguments, result.output)
    assert runner.invoke(app, ["experiment", "plan", str(EXAMPLE), "--rate", "2"]).exit_code == 2
