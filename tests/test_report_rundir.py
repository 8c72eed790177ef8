"""Reading run directories: the manifest, tolerant results reading, and the fixture runs staying in sync."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixtures.make_runs import RUNS_DIR, write_runs

from tau2.episode._trajectory import TerminationReason
from tau2.errors import UserInputError
from tau2.runs._rundir import MANIFEST_FILE, RESULTS_FILE, latest_records, load_run, read_records


def copy_run(name: str, tmp_path: Path) -> Path:
    """A scratch copy of a fixture run."""
    return Path(shutil.copytree(RUNS_DIR / name, tmp_path / name))


def test_fixture_runs_match_their_generator(tmp_path: Path) -> None:
    write_runs(tmp_path)
    for generated in sorted(tmp_path.rglob("*.*")):
        committed = RUNS_DIR / generated.relative_to(tmp_path)
        assert committed.read_bytes() == generated.read_bytes(), f"regenerate {committed}"


def test_load_run_keeps_the_last_record_of_each_task_and_trial() -> None:
    run = load_run(RUNS_DIR / "interactive")
    assert run.manifest.run_id == "run-interactive"
    assert run.manifest.mode_label() == "interactive"
    assert len(run.records) == 16
    first = run.records[0]
    assert (first.trial, first.termination) == (0, TerminationReason.USER_STOP)
    raw, warnings = read_records(RUNS_DIR / "interactive" / RESULTS_FILE)
    assert (len(raw), warnings) == (17, [])
    assert latest_records(raw) == run.records


def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    with results.open("a", encoding="utf-8") as handle:
        handle.write('{"task_id": "[mms]apn_mms_missing[PERSONA:None]", "tri')
    run = load_run(run_dir)
    assert len(run.records) == 16
    assert len(run.warnings) == 1
    assert f"{results}:17: skipped a torn last line" in run.warnings[0]


def test_a_bad_line_before_the_last_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = "{not json\n"
    results.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(UserInputError, match=rf"^{results}:3: invalid JSON"):
        load_run(run_dir)


def test_a_record_failing_validation_names_file_line_and_field(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = json.loads(lines[-1])
    bad["termination"] = "exploded"
    lines[-1] = json.dumps(bad) + "\n"
    results.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(UserInputError, match=rf"^{results}:16: termination: "):
        load_run(run_dir)


def test_manifest_errors_name_the_field(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    manifest = json.loads((run_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest["trials"] = 0
    (run_dir / MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(UserInputError, match=r"manifest.json: trials: "):
        load_run(run_dir)


def test_missing_run_directory_or_results(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="not a run directory"):
        load_run(tmp_path / "absent")
    run_dir = copy_run("solo", tmp_path)
    (run_dir / RESULTS_FILE).unlink()
    assert load_run(run_dir).records == []
