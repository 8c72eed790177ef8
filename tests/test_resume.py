"""Resuming runs: after a real SIGKILL, after a torn last line, after infrastructure errors; and refusing
a changed configuration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_runs import failing_user
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.config import EpisodeSettings
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.runs import RunDirectoryLock, SimulationRecord, load_run, read_records
from tau2.testing import DELAY_VARIABLE, slowed_name

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
SLOWED = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted"), "--quiet"]
"""The offline seats, waiting before each turn when `DELAY_VARIABLE` is set, so a run can be caught
mid-flight."""


def run(*arguments: str) -> Result:
    return runner.invoke(app, ["run", *arguments])


def file_records(out: Path) -> list[SimulationRecord]:
    records, warnings = read_records(out / "results.jsonl")
    assert warnings == []
    return records


def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    if not CONFORMANCE.is_dir():
        pytest.skip(f"conformance tasks not found at {CONFORMANCE}")
    out, results = tmp_path / "run", tmp_path / "run" / "results.jsonl"
    trials, tasks = 3, 20
    arguments = ["--suite", str(CONFORMANCE / "tasks_small.json"), "--data-dir", str(CONFORMANCE), *SLOWED]
    arguments += ["--trials", str(trials), "--concurrency", "4", "--out", str(out)]
    command = [sys.executable, "-m", "tau2", "run", *arguments]
    slowed = {**os.environ, DELAY_VARIABLE: "0.05"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=slowed)
    try:
        deadline = time.monotonic() + 60
        while not (results.exists() and results.read_bytes().count(b"\n") >= 6):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no records appeared"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    before = results.read_bytes().count(b"\n")
    assert 6 <= before < tasks * trials

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"simulations: {tasks * trials}/{tasks * trials} judged" in resumed.stdout
    records = file_records(out)
    units = Counter((record.task_id, record.trial) for record in records)
    assert len(records) == tasks * trials == len(units)
    assert set(units.values()) == {1}
    assert {trial for _, trial in units} == set(range(trials))
    assert all(record.success for record in records)


def test_resume_sets_a_torn_last_line_aside_and_reruns_that_unit(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--out", str(out)).exit_code == 0
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    lost = SimulationRecord.model_validate_json(lines[-1])
    results.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])
    resumed = run("--resume", "--out", str(out), "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stderr.startswith(
        f"warning: {results}: set aside 1 damaged line in {out / 'results.damaged.jsonl'}; "
        "their simulations run again"
    )
    assert (out / "results.damaged.jsonl").read_bytes() == lines[-1][:40] + b"\n"
    records = file_records(out)
    assert len(records) == len(MOCK_TASKS)
    assert (records[-1].task_id, records[-1].trial) == (lost.task_id, lost.trial)


def test_resume_of_a_finished_run_runs_nothing(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--out", str(out)).exit_code == 0
    before = (out / "results.jsonl").read_bytes()
    resumed = run("--resume", "--out", str(out))
    assert resumed.exit_code == 0
    assert "simulations: 5/5 judged, 0 infrastructure errors, 0 not run" in resumed.stdout
    assert (out / "results.jsonl").read_bytes() == before


def test_changed_configuration_is_refused_naming_the_fields(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = ["--suite", str(suite_file), *OFFLINE, "--trials", "2", "--out", str(out)]
    assert run(*first, "--task-ids", "both").exit_code == 0
    changed = ["--trials", "3", "--max-steps", "7", "--agent", "null", "--task-ids", "both,unplugged"]
    refused = run(*first, "--resume", *changed)
    assert refused.exit_code == 2
    assert refused.stderr.strip() == (
        f"error: {out}: cannot resume: the configuration differs in episode.max_steps (100 → 7); "
        "agent.kind (oracle → null); task_ids (1 items → 2 items) "
        "(give the original settings, or start a new run: choose another --out)"
    )
    suite_file.write_text(suite_file.read_text().replace('"name": "mock"', '"name": "edited"'))
    edited = run("--resume", "--out", str(out))
    assert edited.exit_code == 2 and "suite_hash (sha256:" in edited.stderr
    assert len(file_records(out)) == 2


def test_resume_without_a_run_is_refused(tmp_path: Path) -> None:
    result = run("--resume", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {tmp_path}: no run to resume (manifest.json is missing; nothing is recorded there: "
        "run without --resume)"
    )


def test_infrastructure_errors_are_recorded_excluded_and_rerun(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    failing_user(monkeypatch, lambda context: "provider down" if context.task.id == "both" else None)
    first = run("--suite", str(suite_file), *OFFLINE, "--trials", "2", "--out", str(out))
    assert first.exit_code == 0, first.output
    assert "simulations: 8/10 judged, 2 infrastructure errors, 0 not run" in first.stdout
    assert "incomplete: `tau2 run --resume --out" in first.stdout
    failed = [record for record in load_run(out).records if record.excluded]
    assert {(r.task_id, r.termination.value) for r in failed} == {("both", "infrastructure_error")}
    assert "provider down" in (failed[0].termination_detail or "")

    monkeypatch.undo()  # the user starts as usual again
    resumed = run("--resume", "--out", str(out))
    assert resumed.exit_code == 0
    assert "simulations: 10/10 judged, 0 infrastructure errors" in resumed.stdout
    assert len(file_records(out)) == 12
    effective = load_run(out).records
    assert len(effective) == 10 and not any(record.excluded for record in effective)


def test_resume_reuses_the_recorded_data_directory(tmp_path: Path) -> None:
    if not CONFORMANCE.is_dir():
        pytest.skip(f"conformance tasks not found at {CONFORMANCE}")
    out = tmp_path / "run"
    started = run(
        "--suite", str(CONFORMANCE / "tasks_small.json"), "--data-dir", str(CONFORMANCE), *OFFLINE,
        "--out", str(out),
    )  # fmt: skip
    assert started.exit_code == 0, started.output
    assert load_run(out).manifest.config.data_dir == CONFORMANCE.resolve()
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:-3]))  # three units lost, as if killed before they were written

    resumed = run("--resume", "--out", str(out), "--quiet")
    assert resumed.exit_code == 0, resumed.output
    records = file_records(out)
    assert len(records) == 20 and all(record.success for record in records)


def test_a_run_directory_in_use_by_another_process_is_refused(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--out", str(out)).exit_code == 0
    records = (out / "results.jsonl").read_bytes()
    with RunDirectoryLock(out) as held:  # flock conflicts across open descriptions, even in one process
        held.acquire()
        refused = run("--resume", "--out", str(out), "--quiet")
    assert refused.exit_code == 2
    assert refused.stderr.strip() == f"error: {out}: another tau2 run is using this directory"
    assert (out / "results.jsonl").read_bytes() == records
    assert run("--resume", "--out", str(out), "--quiet").exit_code == 0


def flat(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest in the shape runs wrote before manifests held their configuration."""
    config = manifest["config"]
    episode = {name: config[name] for name in EpisodeSettings.model_fields if name in config}
    return {
        **{name: manifest[name] for name in ("run_id", "created_at", "suite_path", "suite_hash")},
        "data_dir": config["data_dir"],
        "domain": manifest["domain"],
        "episode": {**episode, "seed": None},
        "agent": config["agent"],
        "user": config["user"] if config["mode"] == "interactive" else None,
        "persona_override": config["persona"],
        **{name: config[name] for name in ("trials", "seed", "concurrency", "rate_limits")},
        **{name: manifest[name] for name in ("versions", "hashes", "task_ids")},
        "judge": config["judge"],
        "reward_basis_source": manifest["reward_basis_source"],
    }


def test_a_run_with_a_flat_manifest_resumes_and_adds_trials(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--max-steps", "40", "--out", str(out)).exit_code == 0
    manifest_file = out / "manifest.json"
    manifest_file.write_text(json.dumps(flat(json.loads(manifest_file.read_text()))))
    refused = run("--resume", "--out", str(out), "--max-steps", "7", "--persona", "hard", "--quiet")
    assert refused.exit_code == 2
    assert (
        "cannot resume: the configuration differs in episode.max_steps (40 → 7); persona_override "
        "(None → hard); persona (none → "
    ) in refused.stderr
    resumed = run("--resume", "--out", str(out), "--trials", "2", "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert "5 tasks × 2 trials" in resumed.stdout and "10/10 judged" in resumed.stdout
    rewritten = json.loads(manifest_file.read_text())
    assert rewritten["config"]["trials"] == 2 and rewritten["config"]["max_steps"] == 40
