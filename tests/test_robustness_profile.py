"""The robustness profile of `tau2 report` and `tau2 experiment report`, perturbations as a study factor
and on the command line, and the regrade of a perturbed run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tau2 import ExperimentConfig, RunConfig, run, run_experiment
from tau2.cli import app
from tau2.regrade import regrade_suite
from tau2.runs import load_run
from tau2.tasks import get_domain

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "robustness.toml"
TASKS = ["both", "unplugged", "power_cut"]


def _experiment(tmp_path: Path, baseline_perturbed: bool = False) -> Path:
    """A small offline experiment on the mock domain: an unperturbed arm and one whose customer's writes
    are all dropped."""
    dropped = {"perturbations": {"unreliable_user": {"drop_rate": 1.0}}}
    config = ExperimentConfig.model_validate(
        {
            "name": "mock-robustness",
            "baseline": "none",
            "base": {
                "domain": "mock",
                "task_ids": TASKS,
                "trials": 4,
                "agent": "oracle",
                "user": "scripted",
            },
            "arms": [
                {"name": "none", **(dropped if baseline_perturbed else {})},
                {"name": "dropped", **dropped},
            ],
        }
    )
    out = tmp_path / "exp"
    run_experiment(config, out)
    return out


def test_the_experiment_report_profiles_each_perturbed_arm_against_the_unperturbed_baseline(
    tmp_path: Path,
) -> None:
    out = _experiment(tmp_path)
    result = runner.invoke(app, ["experiment", "report", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    (profile,) = report["robustness"]
    assert (profile["arm"], profile["against"]) == ("dropped", "none")
    (summary,) = profile["perturbations"]
    assert summary["kind"] == "unreliable_user"
    assert summary["settings"]["drop_rate"] == 1.0
    assert summary["simulations"] == 12
    # the tasks whose fix is a customer's write: both and unplugged (power_cut needs only the agent)
    assert summary["perturbed"] == 8 and summary["events"]["dropped_call"] >= 8
    assert summary["noticed"] == 8
    assert sorted({task for task, _ in summary["noticed_units"]}) == ["both", "unplugged"]
    delta = profile["delta_pass_hat_1"]
    assert (delta["a"], delta["b"]) == (1.0, 1 / 3)
    assert delta["diff"] == -2 / 3 and delta["ci_low"] <= delta["diff"] <= delta["ci_high"]
    assert profile["p_value"] < 0.01
    (comparison,) = report["comparisons"]
    assert "perturbation" in comparison["differ_in"]
    assert comparison["comparable"]
    text = runner.invoke(app, ["experiment", "report", str(out)]).output
    assert "Robustness profile" in text and "unreliable_user: the agent noticed in 8 simulations" in text


def test_a_run_report_of_an_arm_measures_it_against_its_experiments_unperturbed_arm(tmp_path: Path) -> None:
    out = _experiment(tmp_path)
    result = runner.invoke(app, ["report", str(out / "dropped"), "--json"])
    assert result.exit_code == 0, result.output
    profile = json.loads(result.output)["robustness"]
    assert profile["against"] == "none" and profile["delta_pass_hat_1"]["diff"] == -2 / 3
    assert profile["p_value"] < 0.01
    plain = json.loads(runner.invoke(app, ["report", str(out / "none"), "--json"]).output)
    assert plain["robustness"] is None


def test_a_perturbed_baseline_gives_no_profile_and_says_why(tmp_path: Path) -> None:
    out = _experiment(tmp_path, baseline_perturbed=True)
    report = json.loads(runner.invoke(app, ["experiment", "report", str(out), "--json"]).stdout)
    assert report["robustness"] == []
    assert any("the baseline is perturbed" in warning for warning in report["warnings"])


def test_a_run_on_its_own_is_profiled_without_a_delta_and_compare_names_the_factor(tmp_path: Path) -> None:
    base = {"domain": "mock", "task_ids": TASKS, "agent": "oracle", "user": "scripted"}
    run(RunConfig.model_validate(base), tmp_path / "plain")
    faults = {"tool_faults": {"rate": 1.0, "seat": "both", "mode": "persistent", "kinds": ["write"]}}
    run(RunConfig.model_validate({**base, "perturbations": faults}), tmp_path / "faults")
    report = json.loads(runner.invoke(app, ["report", str(tmp_path / "faults"), "--json"]).output)
    profile = report["robustness"]
    assert profile["against"] is None and profile["delta_pass_hat_1"] is None
    assert profile["pass_hat_k"]["1"]["value"] == 0.0
    assert profile["perturbations"][0]["repeats"] > 0  # the oracle asked again; the fault persisted
    compared = runner.invoke(app, ["compare", str(tmp_path / "plain"), str(tmp_path / "faults"), "--json"])
    factors = {factor["name"]: factor for factor in json.loads(compared.output)["factors"]}
    assert factors["perturbation"]["a"] == "none"
    assert factors["perturbation"]["b"].startswith("tool_faults(rate=1.0")


def test_the_command_line_takes_perturbations_and_refuses_a_bad_one_on_one_line(tmp_path: Path) -> None:
    common = ["run", "--domain", "mock", "--agent", "oracle", "--user", "scripted", "--task-ids", "both"]
    perturbation = ["--perturbation", "unreliable_user:drop_rate=1"]
    given = runner.invoke(app, [*common, *perturbation, "--out", str(tmp_path / "r")])
    assert given.exit_code == 0, given.output
    (record,) = load_run(tmp_path / "r").records
    assert record.reward == 0.0 and record.perturbation is not None
    for bad, message in (
        ("nope", "--perturbation: unknown perturbation 'nope'"),
        ("tool_faults:rate=2", "--perturbation: tool_faults.rate: Input should be less than or equal to 1"),
        (":rate=1", "--perturbation ':rate=1': expected KIND[:KEY=VALUE,…]"),
    ):
        refused = runner.invoke(app, [*common, "--perturbation", bad, "--out", str(tmp_path / "bad")])
        assert refused.exit_code == 2
        (line,) = refused.output.strip().splitlines()
        assert line.startswith(f"error: {message}")
        assert not (tmp_path / "bad").exists()


def test_a_regrade_of_a_perturbed_run_keeps_calls_kept_from_the_world_out_of_it(tmp_path: Path) -> None:
    config = RunConfig(
        domain="mock",
        task_ids=TASKS,
        agent="oracle",
        user="scripted",
        trials=2,
        perturbations={
            "unreliable_user": {"drop_rate": 1.0},
            "tool_faults": {"rate": 1.0, "kinds": ["write"]},
        },
    )
    run(config, tmp_path / "run")
    suite = get_domain("mock").default_suite
    assert suite is not None
    regrade_suite(tmp_path / "run", Path(suite), tmp_path / "regraded")
    before = {(r.task_id, r.trial): r.reward for r in load_run(tmp_path / "run").records}
    after = {(r.task_id, r.trial): r.reward for r in load_run(tmp_path / "regraded").records}
    assert after == before and set(before.values()) == {0.0}


def test_the_example_experiment_s_faulty_arms_are_significantly_worse_than_none_renaming_is_not(
    tmp_path: Path,
) -> None:
    out = tmp_path / "robustness"
    result = runner.invoke(app, ["experiment", "run", str(EXAMPLE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(runner.invoke(app, ["experiment", "report", str(out), "--json"]).output)
    profiles = {profile["arm"]: profile for profile in report["robustness"]}
    assert set(profiles) == {"tool_faults", "unreliable_user", "identifier_format"}
    for arm in ("tool_faults", "unreliable_user"):
        assert profiles[arm]["against"] == "none"
        assert profiles[arm]["delta_pass_hat_1"]["diff"] < 0
        assert profiles[arm]["p_value"] < 0.001
    renamed = profiles["identifier_format"]
    assert renamed["against"] == "none" and renamed["p_value"] >= 0.001


def test_a_perturbed_run_resumes_with_its_perturbations(tmp_path: Path) -> None:
    faults = {"tool_faults": {"rate": 0.5, "seat": "both"}}
    base = {
        "domain": "mock",
        "task_ids": TASKS,
        "agent": "oracle",
        "user": "scripted",
        "perturbations": faults,
    }
    run(RunConfig.model_validate({**base, "trials": 1}), tmp_path / "run")
    run(RunConfig.model_validate({**base, "trials": 3}), tmp_path / "run", resume=True)
    once = tmp_path / "once"
    run(RunConfig.model_validate({**base, "trials": 3}), once)
    resumed = {(r.task_id, r.trial): r.perturbation for r in load_run(tmp_path / "run").records}
    assert resumed == {(r.task_id, r.trial): r.perturbation for r in load_run(once).records}
    assert any(value is not None for value in resumed.values())


def test_reading_a_run_never_imports_a_perturbation_kind_its_manifest_names(tmp_path: Path) -> None:
    config = RunConfig(domain="mock", task_ids=TASKS, agent="oracle", user="scripted")
    run(config.model_copy(update={"trials": 1}), tmp_path / "run")
    manifest = tmp_path / "run" / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["config"]["perturbations"] = {"never_imported_pack:KIND": {"rate": 0.5}}
    manifest.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_run(tmp_path / "run")
    assert loaded.manifest.config.perturbations["never_imported_pack:KIND"].model_dump() == {"rate": 0.5}
    assert runner.invoke(app, ["report", str(tmp_path / "run")]).exit_code == 0
    resumed = runner.invoke(app, ["run", "--resume", "--out", str(tmp_path / "run"), "--trials", "2"])
    assert resumed.exit_code == 2
    assert "never_imported_pack:KIND' names a perturbation by module:attribute" in resumed.output


def test_tau2_episode_says_what_the_perturbations_did() -> None:
    given = ["--perturbation", "unreliable_user:drop_rate=1", "--perturbation", "tool_faults:rate=1"]
    shown = runner.invoke(
        app,
        [
            "episode",
            "--domain",
            "mock",
            "--task-id",
            "both",
            "--agent",
            "oracle",
            "--user",
            "scripted",
            *given,
        ],
    )
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.output.splitlines() if line.startswith("perturbation ")]
    assert lines[0].startswith("perturbation tool_faults: fault at entry 2 (enable_power): ")
    assert "perturbation unreliable_user: dropped_call at entry 5 (plug_in)" in lines
    assert "the agent noticed: unreliable_user" in shown.output
