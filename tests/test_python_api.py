"""The Python API of runs: the documented example runs as written (and its TOML twin through `tau2 run
--config`), runs resume from Python, the three executors behind one interface write the same records,
and results are read from the store when asked for."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_runner_cli import untimed
from typer.testing import CliRunner

import tau2
from tau2.cli import app
from tau2.config import ActorSpec, ExecutorConfig, RunConfig
from tau2.errors import UserInputError
from tau2.experiments import ExperimentConfig
from tau2.runner import RunProgress, Tally
from tau2.runs import MANIFEST_FILE, RESULTS_FILE, SimulationRecord
from tau2.testing import DELAY_VARIABLE, slowed_name

DOCS = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"
OFFLINE = {"agent": ActorSpec(kind="oracle"), "user": ActorSpec(kind="scripted")}


def blocks(language: str) -> list[str]:
    """The fenced blocks of `docs/python-api.md` in `language`, in order."""
    return re.findall(rf"```{language}\n(.*?)```", DOCS.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_documented_example_runs_as_written(tmp_path: Path) -> None:
    example = blocks("python")[0]
    assert "tau2.RunConfig(" in example and "tau2.run(" in example
    done = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert re.search(r"pass\^1 = 1\.000 \[", done.stdout) and "0 failed simulations" in done.stdout
    manifest = json.loads((tmp_path / "runs" / "api-demo" / MANIFEST_FILE).read_text())
    assert (manifest["domain"], len(manifest["task_ids"])) == ("telecom", 159)


def test_the_documented_toml_twin_runs_through_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "demo.toml").write_text(blocks("toml")[0])
    out = tmp_path / "runs" / "toml-demo"
    result = CliRunner().invoke(
        app, ["run", "--config", str(tmp_path / "demo.toml"), "--quiet", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "159 tasks × 1 trials" in result.stdout and "pass^1: 1.000" in result.stdout
    assert tau2.load_run_result(out).pass_hat_k()[1].value == 1.0


def test_a_run_resumes_from_python_taking_what_was_not_given(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = tau2.run(RunConfig(suite=suite_file, trials=1, max_steps=40, **OFFLINE), out)
    more = tau2.run(RunConfig(trials=3), out, resume=True)
    assert more.manifest.run_id == first.manifest.run_id
    assert (more.config.trials, more.config.max_steps, more.config.agent.kind) == (3, 40, "oracle")
    assert sorted({record.trial for record in more.records()}) == [0, 1, 2]
    with pytest.raises(
        UserInputError, match=r"cannot resume: the configuration differs in episode.max_steps"
    ):
        tau2.run(RunConfig(max_steps=7), out, resume=True)


def test_a_refused_directory_says_what_to_do_in_python_words(suite_file: Path, tmp_path: Path) -> None:
    out, config = tmp_path / "run", RunConfig(suite=suite_file, trials=1, **OFFLINE)
    tau2.run(config, out)
    refusals = {
        "not empty; pass resume=True to continue its run, or give another out": lambda: tau2.run(config, out),
        "cannot resume: the configuration differs in episode.max_steps (100 → 7) (give the original "
        "settings, or start a new run: give another out)": lambda: tau2.run(
            RunConfig(max_steps=7), out, resume=True
        ),
        "no run to resume (manifest.json is missing; nothing is recorded there: start it without "
        "resume=True)": lambda: tau2.run(config, tmp_path / "empty", resume=True),
        "not a directory; give another out": lambda: tau2.run(config, suite_file),
    }
    for message, call in refusals.items():
        with pytest.raises(UserInputError) as refused:
            call()
        assert str(refused.value).endswith(message) and "--" not in str(refused.value)
    experiment = ExperimentConfig.model_validate(
        {
            "name": "e",
            "baseline": "a",
            "base": {"suite": str(suite_file), **OFFLINE},
            "arms": [{"name": "a"}, {"name": "b"}],
        }
    )
    with pytest.raises(UserInputError, match=r"not empty; pass resume=True to continue its experiment, or "):
        tau2.run_experiment(experiment, out)


class Peak(RunProgress):
    """Remembers the most simulations in flight at once, and the warnings."""

    def __init__(self) -> None:
        self.running = 0
        self.warnings: list[str] = []

    def warning(self, message: str) -> None:
        self.warnings.append(message)

    def update(self, tally: Tally) -> None:
        self.running = max(self.running, tally.running)


def test_a_resume_runs_at_the_concurrency_given_now(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DELAY_VARIABLE, "0.001")  # each turn waits, so simulations overlap
    slowed = {"agent": ActorSpec(kind=slowed_name("oracle")), "user": ActorSpec(kind=slowed_name("scripted"))}
    out = tmp_path / "run"
    tau2.run(RunConfig(suite=suite_file, trials=4, concurrency=8, **slowed), out)
    results = out / RESULTS_FILE
    results.write_bytes(b"".join(results.read_bytes().splitlines(keepends=True)[:5]))
    peak = Peak()
    tau2.run(RunConfig(concurrency=1), out, resume=True, progress=peak)
    assert peak.running == 1
    assert len(list(tau2.load_run_result(out).records())) == 20


def test_warnings_reach_the_progress_hooks(suite_file: Path, tmp_path: Path) -> None:
    peak = Peak()
    config = RunConfig(suite=suite_file, mode="solo", **OFFLINE)  # type: ignore[arg-type]
    result = tau2.run(config, tmp_path / "run", progress=peak)
    assert peak.warnings == result.warnings == ["solo mode has no user seat: user is ignored"]
    with pytest.warns(UserWarning, match="solo mode has no user seat"):
        tau2.run(config, tmp_path / "again")


@pytest.mark.parametrize(
    "executor",
    [ExecutorConfig(workers=2), ExecutorConfig(workers=2, address="local")],
    ids=["workers", "ray"],
)
def test_every_executor_writes_the_records_of_the_local_one(
    suite_file: Path, tmp_path: Path, executor: ExecutorConfig
) -> None:
    if executor.kind == "ray":
        pytest.importorskip("ray")
    base = RunConfig(suite=suite_file, trials=2, seed=5, **OFFLINE)
    local = tau2.run(base, tmp_path / "local")
    other = tau2.run(base.model_copy(update={"executor": executor}), tmp_path / executor.kind)
    assert other.config.executor.kind == executor.kind

    def by_unit(records: list[SimulationRecord]) -> dict[tuple[str, int], dict[str, Any]]:
        return {(record.task_id, record.trial): untimed(record) for record in records}

    assert by_unit(list(other.records())) == by_unit(list(local.records()))


def test_results_are_read_from_the_store_when_asked_for(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = tau2.run(RunConfig(suite=suite_file, **OFFLINE), out)
    loaded = tau2.load_run_result(out)
    assert loaded.manifest == result.manifest and repr(loaded) == repr(result)
    results = out / RESULTS_FILE
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:2]))
    assert len(list(loaded.records())) == 2
    report = loaded.report()
    assert report.totals.simulations == 2 and report.manifest == loaded.manifest
    with pytest.raises(UserInputError, match="not a run directory"):
        tau2.load_run_result(tmp_path / "nothing")
