"""`tau2 experiment report`: every arm against the baseline on paired (task, trial) units, the verdict, where
the difference comes from, the flips, missing units, and arms that cannot differ (offline ablations)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest
from fixtures.experiments import experiment, write_experiment
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.config import RunConfig
from tau2.experiments import ExperimentManifest, arm_run_dir, build_experiment_report
from tau2.metrics import Bootstrap
from tau2.report.ablation import ablation
from tau2.runs import RESULTS_FILE, Run, RunManifest, SimulationRecord, load_run

runner = CliRunner()

OFFLINE = {"agent": "oracle", "user": "scripted"}


def report_json(directory: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["experiment", "report", str(directory), "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def records(directory: Path, arm: str) -> dict[tuple[str, int], SimulationRecord]:
    return {(r.task_id, r.trial): r for r in load_run(arm_run_dir(directory, arm)).records}


@pytest.fixture(scope="module")
def telecom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bar's experiment: telecom's default suite, oracle and transfer agents, scripted user, 2 trials."""
    base = {"domain": "telecom", "trials": 2, "seed": 7, "user": "scripted"}
    config = experiment("bar", "oracle", base, oracle={"agent": "oracle"}, transfer={"agent": "transfer"})
    return write_experiment(tmp_path_factory.mktemp("experiment") / "bar", config)


@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small experiment on the mock domain: the oracle agent against one that does nothing."""
    base = {"domain": "mock", "trials": 3, "seed": 1, "user": "scripted"}
    config = experiment("small", "oracle", base, oracle={"agent": "oracle"}, null={"agent": "null"})
    return write_experiment(tmp_path_factory.mktemp("experiment") / "small", config)


def test_bar_transfer_loses_against_the_oracle_on_paired_units(telecom: Path) -> None:
    data = report_json(telecom)
    (comparison,) = data["comparisons"]
    assert (comparison["arm"], comparison["baseline"]) == ("transfer", "oracle")

    oracle, transfer = records(telecom, "oracle"), records(telecom, "transfer")
    assert oracle.keys() == transfer.keys() and len(oracle) == 159 * 2
    assert all(oracle[unit].seed == transfer[unit].seed for unit in oracle), "every unit has one seed"
    assert comparison["seed_mismatches"] == 0

    tasks = sorted({task for task, _ in oracle})
    per_task = [
        fmean(transfer[task, t].success for t in (0, 1)) - fmean(oracle[task, t].success for t in (0, 1))
        for task in tasks
    ]
    assert comparison["delta_pass_hat_1"] == pytest.approx(fmean(per_task))
    assert comparison["delta_pass_hat_1"] < -0.5
    assert comparison["p_value"] < 0.001
    low, high = comparison["ci"]
    assert low < comparison["delta_pass_hat_1"] < high < 0
    assert 0 < comparison["mdd"] < abs(comparison["delta_pass_hat_1"])

    lost = {unit for unit in oracle if oracle[unit].success and not transfer[unit].success}
    gained = {unit for unit in oracle if transfer[unit].success and not oracle[unit].success}
    assert comparison["flips_to_fail"] == len(lost) and comparison["flips_to_pass"] == len(gained)
    flips = {(f["task_id"], f["trial"]): f for f in comparison["flips"]}
    assert flips.keys() == lost | gained
    assert all(flips[unit]["to"] == "fail" and flips[unit]["seed"] == oracle[unit].seed for unit in lost)
    assert comparison["incomplete"] == 0 and comparison["tasks"] == len(tasks)
    assert comparison["detected"] and comparison["comparable"] and comparison["settings"] == ["agent.kind"]
    assert comparison["verdict"].startswith(
        f"transfer loses {abs(comparison['delta_pass_hat_1']):.2f} pass^1"
    )


def test_bar_arms_and_sources_come_from_the_records(telecom: Path) -> None:
    data = report_json(telecom)
    assert [arm["name"] for arm in data["arms"]] == ["oracle", "transfer"]
    assert data["kind"] == "experiment" and data["baseline"] == "oracle"
    for arm in data["arms"]:
        units = records(telecom, arm["name"]).values()
        assert arm["simulations"] == len(units) and arm["successes"] == sum(r.success for r in units)
        assert arm["pass_hat_k"]["1"]["value"] == pytest.approx(arm["successes"] / arm["simulations"])
        assert arm["missing"]["trials"] == 0 and set(arm["pass_hat_k"]) == {"1", "2"}
    (comparison,) = data["comparisons"]
    sources = comparison["sources"]
    assert set(sources) == {"intent", "subtasks", "persona", "action", "seat"}
    for grouping in ("intent", "subtasks", "persona"):  # each task in one group: the shares add up
        total = sum(group["contribution"] for group in sources[grouping])
        assert total == pytest.approx(comparison["delta_pass_hat_1"])
    transfers = next(g for g in sources["action"] if g["key"] == "agent: transfer_to_human_agents")
    assert transfers["delta"] == 0, "the transfer agent solves the tasks that expect a transfer"
    assert {g["key"] for g in sources["seat"]} == {"agent", "user"}
    effort = {(m["seat"], m["measure"]): m["mean"] for m in data["arms"][1]["effort"]}
    assert effort["user", "tool calls"] == 0, "nobody asks the customer to do anything"


def test_terminal_report_shows_verdict_flips_and_sources(telecom: Path) -> None:
    result = runner.invoke(app, ["experiment", "report", str(telecom)])
    assert result.exit_code == 0, result.output
    comparison = report_json(telecom)["comparisons"][0]
    out = result.stdout
    assert comparison["verdict"] in out
    flipped = len({f["task_id"] for f in comparison["flips"]})
    assert f"flips to fail in transfer: {comparison['flips_to_fail']} trials of {flipped} tasks" in out
    assert f"and {flipped - 10} more tasks" in out
    assert "Where transfer − oracle comes from" in out and "Per seat, per valid simulation" in out
    assert "pass^k (transfer − oracle)" in out, "Δpass^k with its paired interval"
    assert "oracle (baseline): interactive · agent oracle · user scripted" in out


def break_units(run_dir: Path, units: set[tuple[str, int]]) -> None:
    """Turn the records of `units` into infrastructure errors."""
    results = run_dir / RESULTS_FILE
    lines = []
    for line in results.read_text().splitlines():
        record = json.loads(line)
        if (record["task_id"], record["trial"]) in units:
            record.update(termination="infrastructure_error", reward=0.0)
        lines.append(json.dumps(record))
    results.write_text("\n".join(lines) + "\n")


def test_missing_units_are_left_out_of_the_test_and_counted(mock: Path, tmp_path: Path) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    tasks = sorted({task for task, _ in records(directory, "oracle")})
    break_units(directory / "oracle", {(tasks[0], 0), (tasks[0], 1), (tasks[0], 2)})
    break_units(directory / "null", {(tasks[1], 2)})
    data = report_json(directory)
    (comparison,) = data["comparisons"]
    assert comparison["incomplete"] == 4
    assert comparison["flips_to_fail"] + comparison["flips_to_pass"] == len(comparison["flips"])
    assert comparison["flips_to_fail"] == (len(tasks) - 1) * 3 - 1, "the oracle solves all, null none"
    assert comparison["tasks"] == len(tasks) - 1, "a task with no valid trial in one arm is not paired"
    oracle, null = data["arms"]
    assert oracle["missing"]["trials"] == 3 and oracle["missing"]["all_missing"] == [tasks[0]]
    assert oracle["missing"]["bounds"]["1"] == {"low": 1 - 1 / len(tasks), "high": 1.0, "tasks": len(tasks)}
    assert null["missing"]["trials"] == 1 and null["missing"]["bounds"]["1"]["high"] == pytest.approx(
        1 / 3 / len(tasks)
    )
    out = runner.invoke(app, ["experiment", "report", str(directory)]).stdout
    assert "oracle: 3 trials missing (infrastructure errors) in 1 tasks" in out
    assert f"oracle: no valid trial in 1 tasks: {tasks[0]}" in out


def test_arms_differing_only_in_a_persona_the_scripted_user_ignores(tmp_path: Path) -> None:
    base = {"domain": "mock", "trials": 2, **OFFLINE}
    config = experiment("personas", "easy", base, easy={"persona": "easy"}, hard={"persona": "hard"})
    directory = write_experiment(tmp_path / "personas", config)
    (comparison,) = report_json(directory)["comparisons"]
    reason = (
        "the arms differ only in persona, which the scripted user ignores: this comparison cannot show a "
        "difference"
    )
    assert comparison["comparable"] is False and comparison["reason"] == reason
    assert comparison["settings"] == ["persona"]
    assert comparison["verdict"] == f"hard against easy: {reason}"
    assert comparison["delta_pass_hat_1"] == 0, "the figures are still there"
    out = runner.invoke(app, ["experiment", "report", str(directory)]).stdout
    assert f"hard against easy: {reason}" in out and "no difference larger than" not in out


def config(**settings: Any) -> RunConfig:
    return RunConfig.model_validate({"domain": "mock", **settings})


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        (
            {**OFFLINE, "persona": "easy"},
            {**OFFLINE, "persona": "hard"},
            "persona, which the scripted user ignores",
        ),
        (
            {"agent": "oracle", "user": "scripted", "policy_variant": "manual", "oracle_plan": False},
            {"agent": "oracle", "user": "scripted", "policy_variant": "other", "oracle_plan": True},
            "oracle_plan and policy_variant, which the oracle agent ignores",
        ),
        (
            {"mode": "solo", "agent": "oracle", "user": {"kind": "llm", "model": "openai/a"}},
            {"mode": "solo", "agent": "oracle", "user": {"kind": "llm", "model": "openai/b"}},
            "user.model, which solo mode ignores (it has no user seat)",
        ),
        (
            {**OFFLINE, "concurrency": 4, "persona": "easy"},
            {**OFFLINE, "concurrency": 8, "persona": "hard"},
            "persona, which the scripted user ignores; and in concurrency, which changes how simulations are "
            "run, not what they do",
        ),
    ],
)
def test_settings_nobody_reads_make_a_comparison_that_cannot_differ(
    a: dict[str, Any], b: dict[str, Any], reason: str
) -> None:
    result = ablation(config(**a), config(**b))
    assert not result.comparable
    assert result.reason == f"the arms differ only in {reason}: this comparison cannot show a difference"


@pytest.mark.parametrize(
    ("a", "b", "settings"),
    [
        (OFFLINE, {**OFFLINE, "agent": "transfer"}, ["agent.kind"]),
        (
            {"agent": "oracle", "user": {"kind": "llm", "model": "openai/u"}, "persona": "easy"},
            {"agent": "oracle", "user": {"kind": "llm", "model": "openai/u"}, "persona": "hard"},
            ["persona"],
        ),
        ({**OFFLINE, "persona": "easy"}, {**OFFLINE, "persona": "easy", "max_steps": 10}, ["max_steps"]),
        ({**OFFLINE, "mode": "solo"}, OFFLINE, ["mode"]),
        (
            {"agent": "human", "user": "scripted"},
            {"agent": "human", "user": "scripted", "oracle_plan": True},
            None,
        ),
    ],
)
def test_settings_an_actor_or_the_episode_reads_make_a_comparison(
    a: dict[str, Any], b: dict[str, Any], settings: list[str] | None
) -> None:
    result = ablation(config(**a), config(**b))
    assert result.comparable and result.reason is None
    assert result.settings == (settings or ["oracle_plan"]), "a kind not declared reads everything"


def test_identical_arms_are_a_replicate() -> None:
    result = ablation(config(**OFFLINE), config(**OFFLINE))
    assert not result.comparable and result.settings == []
    assert result.reason == "the arms have the same configuration: any difference between them is noise"


def test_html_page_escapes_names_and_links_every_flip_to_both_arms(mock: Path, tmp_path: Path) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    manifest_path = directory / "experiment.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["config"]["name"] = "<script>alert(1)</script>"
    manifest_path.write_text(json.dumps(manifest))
    page = tmp_path / "page.html"
    result = runner.invoke(app, ["experiment", "report", str(directory), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    flips = report_json(directory)["comparisons"][0]["flips"]
    assert html.count('class="badge fail">null: fail</a>') == len(flips)
    assert html.count('class="badge pass">oracle: pass</a>') == len(flips)


@pytest.mark.parametrize("page", ["experiment.json", "notes.txt"])
def test_the_page_never_overwrites_a_file_of_the_experiment(mock: Path, tmp_path: Path, page: str) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    target = directory / page
    target.write_text(target.read_text() if target.exists() else "notes")
    before = target.read_bytes()
    result = runner.invoke(app, ["experiment", "report", str(directory), "--html", str(target)])
    assert result.exit_code == 2 and result.stderr.strip() == (
        f"error: {target}: is a file of the experiment in {directory}; choose another --html path"
    )
    assert target.read_bytes() == before


@pytest.mark.parametrize("remove", ["experiment.json", "null"])
def test_an_incomplete_experiment_directory_is_one_line(mock: Path, tmp_path: Path, remove: str) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    target = directory / remove
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    result = runner.invoke(app, ["experiment", "report", str(directory)])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and str(target) in result.stderr


def test_units_with_another_seed_are_counted_and_warned_about(mock: Path, tmp_path: Path) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    results = directory / "null" / RESULTS_FILE
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    lines[0]["seed"] += 1
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = runner.invoke(app, ["experiment", "report", str(directory), "--json"])
    assert json.loads(result.stdout)["comparisons"][0]["seed_mismatches"] == 1
    assert "null: 1 (task, trial) units have another seed than in oracle" in result.stderr


OUTCOMES = st.sampled_from(["pass", "fail", "missing", "absent"])
"""A unit's fate in one arm: passed, failed, an infrastructure error, or not recorded."""


def fake_run(path: Path, arm: str, fates: dict[tuple[str, int], str], trials: int) -> Run:
    """A run of the mock domain whose records have the given fates (units `absent` left out)."""
    tasks = sorted({task for task, _ in fates})
    made = [
        SimulationRecord(
            task_id=task,
            trial=trial,
            seed=1000 * trial + tasks.index(task),
            intent=f"intent-{tasks.index(task) % 2}",
            mode="interactive",
            reward=float(fate == "pass"),
            termination="infrastructure_error" if fate == "missing" else "user_stop",
        )
        for (task, trial), fate in fates.items()
        if fate != "absent"
    ]
    base = {"domain": "mock", "trials": trials, **OFFLINE}
    config = RunConfig.model_validate({**base, "agent": arm})
    manifest = RunManifest(
        run_id=arm,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        config=config,
        suite_path="suite.json",
        suite_hash="0" * 32,
        domain="mock",
        task_ids=tasks,
    )
    return Run(path=path / arm, manifest=manifest, records=made)


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 5), st.integers(1, 3), st.data())
def test_paired_figures_agree_with_the_units(tasks: int, trials: int, data: st.DataObject) -> None:
    units = [(f"task-{t}", trial) for t in range(tasks) for trial in range(trials)]
    fates = {arm: {unit: data.draw(OUTCOMES) for unit in units} for arm in ("oracle", "null")}
    path = Path("experiment")
    runs = {arm: fake_run(path, arm, fates[arm], trials) for arm in fates}
    config = experiment(
        "property", "oracle", {"domain": "mock", **OFFLINE}, oracle={}, null={"agent": "null"}
    )
    manifest = ExperimentManifest(created_at=datetime.now(UTC), config=config)
    report = build_experiment_report(path, manifest, runs, Bootstrap(samples=50))
    (comparison,) = report.comparisons
    base, arm = fates["oracle"], fates["null"]
    both = [unit for unit in units if base[unit] in ("pass", "fail") and arm[unit] in ("pass", "fail")]
    recorded = [unit for unit in units if base[unit] != "absent" or arm[unit] != "absent"]
    assert comparison.incomplete == len(recorded) - len(both)
    assert comparison.flips_to_pass == sum(base[u] == "fail" and arm[u] == "pass" for u in both)
    assert comparison.flips_to_fail == sum(base[u] == "pass" and arm[u] == "fail" for u in both)
    assert len(comparison.flips) == comparison.flips_to_pass + comparison.flips_to_fail
    assert comparison.seed_mismatches == 0
    for summary in report.arms:
        assert summary.missing.trials == sum(fate == "missing" for fate in fates[summary.name].values())
    if comparison.delta_pass_hat_1 is not None:
        shares = [group.contribution or 0.0 for group in comparison.sources["intent"]]
        assert sum(shares) == pytest.approx(comparison.delta_pass_hat_1)
    else:
        assert comparison.tasks == 0 and "no task has valid trials in both arms" in comparison.verdict


def test_an_arm_scored_against_other_task_content_is_refused_unless_allowed(
    mock: Path, tmp_path: Path
) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    path = directory / "null" / "manifest.json"
    manifest = json.loads(path.read_text())
    changed = next(iter(manifest["task_hashes"]))
    manifest["task_hashes"][changed] = "sha256:" + "0" * 64
    manifest["hashes"]["policy"] = "sha256:" + "1" * 64
    path.write_text(json.dumps(manifest))
    refused = runner.invoke(app, ["experiment", "report", str(directory)])
    assert refused.exit_code == 2 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert line.startswith("error: cannot compare: arm null: task content differs between runs")
    assert f"for 1 task ({changed})" in line and "--allow-mismatch compares anyway" in line
    allowed = runner.invoke(app, ["experiment", "report", str(directory), "--allow-mismatch"])
    assert allowed.exit_code == 0, allowed.output
    assert "warning: arm null: task content differs" in allowed.stderr


def test_a_policy_the_arms_differ_in_is_named_not_refused(mock: Path, tmp_path: Path) -> None:
    directory = tmp_path / "small"
    shutil.copytree(mock, directory)
    path = directory / "null" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["hashes"]["policy"] = "sha256:" + "1" * 64
    path.write_text(json.dumps(manifest))
    result = runner.invoke(app, ["experiment", "report", str(directory), "--json"])
    assert result.exit_code == 0 and result.stderr == "", result.output
    (comparison,) = json.loads(result.stdout)["comparisons"]
    assert comparison["differ_in"] == ["agent", "hash policy"]
    text = runner.invoke(app, ["experiment", "report", str(directory)])
    assert "arms differ in: agent, hash policy" in text.stdout


# --- verdicts for CI --------------------------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "oracle-vs-transfer.toml"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example, run through the command line: transfer (the arm) against oracle."""
    out = tmp_path_factory.mktemp("example") / "oracle-vs-transfer"
    result = runner.invoke(app, ["experiment", "run", str(EXAMPLE), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def replicate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example with its transfer arm made a second oracle arm: oracle against oracle."""
    folder = tmp_path_factory.mktemp("replicate")
    text = EXAMPLE.read_text(encoding="utf-8")
    file = folder / "oracle-vs-oracle.toml"
    file.write_text(
        text.replace(
            'name = "transfer"\nagent = { kind = "transfer" }', 'name = "again"\nagent = { kind = "oracle" }'
        ),
        encoding="utf-8",
    )
    assert 'kind = "transfer"' not in file.read_text(encoding="utf-8")
    result = runner.invoke(app, ["experiment", "run", str(file), "--out", str(folder / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    return folder / "out"


def test_bar_fail_if_worse_exits_1_on_oracle_against_transfer(example: Path) -> None:
    result = runner.invoke(app, ["experiment", "report", str(example), "--fail-if-worse"])
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("Experiment oracle-vs-transfer")
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "fail: transfer is significantly worse than oracle by more than 0 pass^1 (Δ -0.836; Holm p < 0.001"
    )
    as_json = runner.invoke(app, ["experiment", "report", str(example), "--fail-if-worse", "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["comparisons"][0]["p_holm"] < 0.001


def test_fail_if_worse_tolerates_a_loss_within_the_margin(example: Path) -> None:
    result = runner.invoke(app, ["experiment", "report", str(example), "--fail-if-worse", "--margin", "0.9"])
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_bar_fail_if_worse_exits_0_on_oracle_against_oracle(replicate: Path) -> None:
    result = runner.invoke(app, ["experiment", "report", str(replicate), "--fail-if-worse"])
    assert result.exit_code == 0 and result.stderr == "", result.output
    assert "arms differ in nothing" in result.stdout


def test_fail_if_worse_keeps_the_exit_codes_of_errors(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["experiment", "report", str(tmp_path / "none"), "--fail-if-worse"])
    assert missing.exit_code == 2 and len(missing.stderr.splitlines()) == 1
    bad = runner.invoke(app, ["experiment", "report", str(tmp_path), "--fail-if-worse", "--margin", "-1"])
    assert bad.exit_code == 2


@pytest.mark.parametrize(
    "arguments",
    [
        ["experiment", "report", "{missing}"],
        ["experiment", "report", "{mock}", "--margin", "-1"],
        ["experiment", "report", "{mock}", "--bootstrap-samples", "0"],
        ["experiment", "report", "{mock}", "--html", "-", "--json"],
        ["compare", "{mock}/oracle"],
        ["compare", "{mock}/oracle", "{missing}"],
        ["compare", "{mock}/oracle", "{mock}/null", "--max-k", "0"],
    ],
)
def test_every_refusal_of_compare_and_experiment_report_is_one_line(
    mock: Path, tmp_path: Path, arguments: list[str]
) -> None:
    filled = [a.format(mock=mock, missing=tmp_path / "missing") for a in arguments]
    result = runner.invoke(app, filled)
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ")
