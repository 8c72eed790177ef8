"""Reading run directories: the manifest, tolerant results reading, and the fixture runs staying in sync."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fixtures.make_runs import RUNS_DIR, write_runs

from tau2.episode import TerminationReason
from tau2.errors import UserInputError
from tau2.runs import MANIFEST_FILE, RESULTS_FILE, latest_records, load_run, read_records


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
    assert run.warnings == [
        f"{results}: skipped 1 damaged line (line 17); `tau2 run --resume` sets them aside and runs their "
        "simulations again"
    ]


def test_damaged_lines_anywhere_are_skipped_with_one_warning_naming_them(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    lines = results.read_bytes().splitlines(keepends=True)
    lines[2] = b"{not json\n"
    lines[-1] = b"\x00" * 64 + b"\n"  # what a power loss leaves: NUL bytes, then the next line's newline
    results.write_bytes(b"".join(lines))
    run = load_run(run_dir)
    assert len(run.records) == 14
    assert len(run.warnings) == 1
    assert run.warnings[0].startswith(f"{results}: skipped 2 damaged lines (line 3, 16)")


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


def append_records(results: Path, edits: list[dict[str, object]]) -> None:
    """Append copies of the first record of `results` with `edits` applied."""
    first = json.loads(results.read_text(encoding="utf-8").splitlines()[0])
    with results.open("a", encoding="utf-8") as handle:
        for edit in edits:
            handle.write(json.dumps({**first, **edit}) + "\n")


def test_records_outside_the_run_are_left_out_with_one_warning_counting_them(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    before = load_run(run_dir)
    assert before.warnings == []
    trials = before.manifest.trials
    append_records(
        results,
        [
            {"task_id": "not-in-the-manifest"},
            {"trial": trials},
            {"trial": trials + 5},
            {"run_id": "another-run"},
        ],
    )
    after = load_run(run_dir)
    assert after.records == before.records
    assert after.warnings == [
        f"{results}: left out 4 records not part of run {before.manifest.run_id}: 1 of tasks outside the "
        f"manifest, 2 of trials beyond the planned {trials}, 1 from another run"
    ]


def test_two_runs_concatenated_keep_only_the_manifests_records(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    before = load_run(run_dir)
    other = copy_run("interactive", tmp_path)
    with results.open("ab") as handle:
        handle.write((other / RESULTS_FILE).read_bytes())
    after = load_run(run_dir)
    assert after.records == before.records
    assert len(after.warnings) == 1
    assert (
        f"left out 17 records not part of run {before.manifest.run_id}: 17 from another run"
        in after.warnings[0]
    )


def test_a_finished_simulation_recorded_twice_is_counted_once_with_a_warning(tmp_path: Path) -> None:
    run_dir = copy_run("solo", tmp_path)
    results = run_dir / RESULTS_FILE
    before = load_run(run_dir)
    append_records(results, [{}])
    after = load_run(run_dir)
    assert len(after.records) == len(before.records)
    assert after.warnings == [
        f"{results}: left out 1 record not part of run {before.manifest.run_id}: 1 repeating a finished "
        "simulation (the last kept)"
    ]
