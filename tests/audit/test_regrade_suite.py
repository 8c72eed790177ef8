"""`tau2 regrade RUN --suite FILE`: stored trajectories re-scored against other task definitions, replayed
in a fresh world without any model; the run read stays byte-identical, each flip is listed with why, and
tasks the run and the file do not share are reported."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.errors import UserInputError
from tau2.regrade import regrade_suite
from tau2.runs import RunDirectoryLock, load_run, task_hash
from tau2.tau2bench import load_task_file

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
AIRLINE_FLIPS = ["2", "7", "9", "14", "23", "27", "29", "33", "35", "37", "38", "44"]
"""The airline tasks whose oracle verdict flips when a run of the older task file is regraded against the
revised one (their reference actions or information to communicate changed)."""


def regrade(*arguments: str | Path) -> Result:
    return runner.invoke(app, ["regrade", *map(str, arguments)])


def tree_digest(root: Path) -> dict[str, str]:
    """Every file below `root` by relative path, with the hash of its bytes."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def mock_run(suite_file: Path, tmp_path: Path) -> Path:
    """An offline run of the mock suite, two trials per task: every simulation passes."""
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["run", "--suite", str(suite_file), *OFFLINE, "--trials", "2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def edited_suite(suite_file: Path, path: Path, edit: Callable[[list[dict[str, Any]]], None]) -> Path:
    """The suite with `edit` applied to its list of tasks, saved at `path`."""
    data = json.loads(suite_file.read_text(encoding="utf-8"))
    edit(data["tasks"])
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_regrading_against_the_same_file_flips_nothing_and_leaves_the_run_untouched(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    before = tree_digest(mock_run)
    out = tmp_path / "regraded"
    result = regrade(mock_run, "--suite", suite_file, "--out", out)
    assert result.exit_code == 0, result.output
    assert "verdicts that flip: 0" in result.stdout and "flip:" not in result.stdout.replace("flip: 0", "")
    assert "tasks whose content differs from the run's: 0" in result.stdout
    assert tree_digest(mock_run) == before
    source, regraded = load_run(mock_run), load_run(out)
    assert regraded.manifest.regraded_from is not None
    assert regraded.manifest.regraded_from.run_id == source.manifest.run_id != regraded.manifest.run_id
    assert regraded.manifest.task_hashes == source.manifest.task_hashes
    assert [(r.task_id, r.trial, r.reward) for r in regraded.records] == [
        (r.task_id, r.trial, r.reward) for r in source.records
    ]
    assert all(r.run_id == regraded.manifest.run_id for r in regraded.records)
    assert [r.state_changes for r in regraded.records] == [r.state_changes for r in source.records]
    assert [r.assertions for r in regraded.records] == [r.assertions for r in source.records]


def test_a_changed_assertion_flips_every_trial_of_its_task_and_says_which_assertion(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    def negate_first(tasks: list[dict[str, Any]]) -> None:
        tasks[0]["evaluation"]["assertions"][0]["expected"] = False

    changed = edited_suite(suite_file, tmp_path / "changed.json", negate_first)
    task_id = load_task_file(changed)[0].id
    result = regrade(mock_run, "--suite", changed, "--out", tmp_path / "regraded")
    assert result.exit_code == 0, result.output
    flips = [line for line in result.stdout.splitlines() if line.startswith("flip:")]
    assert [line.split(":")[1].strip() for line in flips] == [
        f"task {task_id}, trial 0",
        f"task {task_id}, trial 1",
    ]
    assert all("pass → fail" in line and "is false: absent → failed" in line for line in flips)
    assert "verdicts that flip: 2" in result.stdout
    assert "tasks whose content differs from the run's: 1" in result.stdout
    regraded = load_run(tmp_path / "regraded")
    assert regraded.manifest.task_hashes[task_id] == task_hash(load_task_file(changed)[0])
    assert {r.task_id for r in regraded.records if not r.success} == {task_id}
    record = next(r for r in regraded.records if r.task_id == task_id)
    assert record.provenance is not None and record.provenance.task == regraded.manifest.task_hashes[task_id]


def test_a_changed_world_replays_the_calls_there(mock_run: Path, suite_file: Path, tmp_path: Path) -> None:
    """The first task without its init call starts with the lamp plugged in: the oracle's recorded
    `plug_in` now runs on a plugged lamp, and the replayed result replaces the recorded one."""

    def drop_init(tasks: list[dict[str, Any]]) -> None:
        tasks[0]["initialization"] = []

    changed = edited_suite(suite_file, tmp_path / "changed.json", drop_init)
    report = regrade_suite(mock_run, changed, tmp_path / "regraded")
    task_id = load_task_file(changed)[0].id
    assert report.changed_tasks == [task_id]
    source = {(r.task_id, r.trial): r for r in load_run(mock_run).records}
    for record in load_run(tmp_path / "regraded").records:
        if record.task_id != task_id:
            continue
        assert record.trajectory is not None
        before = source[record.task_id, record.trial]
        assert before.trajectory is not None
        assert [e.tool_call for e in record.trajectory.entries] == [
            e.tool_call for e in before.trajectory.entries
        ]
        assert record.state_changes != before.state_changes


def test_tasks_the_run_and_the_file_do_not_share_are_reported(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    tasks = load_task_file(suite_file)
    dropped = tasks[1].id

    def drop_and_add(entries: list[dict[str, Any]]) -> None:
        extra = json.loads(json.dumps(entries[0]))
        extra["id"] = "brand-new"
        entries[:] = [entry for entry in entries if entry["id"] != dropped] + [extra]

    changed = edited_suite(suite_file, tmp_path / "changed.json", drop_and_add)
    result = regrade(mock_run, "--suite", changed, "--out", tmp_path / "regraded")
    assert result.exit_code == 0, result.output
    assert f"1 tasks in the run but not in the file (not regraded): {dropped}" in result.stdout
    assert "1 tasks in the file but not in the run (never simulated): brand-new" in result.stdout
    regraded = load_run(tmp_path / "regraded")
    assert dropped not in regraded.manifest.task_ids and "brand-new" not in regraded.manifest.task_ids
    assert len(regraded.records) == 2 * (len(tasks) - 1)


def test_infrastructure_errors_are_reported_and_left_out(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    results = mock_run / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    lines[0].update(termination="infrastructure_error", reward=0.0, trajectory=None)
    results.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = regrade(mock_run, "--suite", suite_file, "--out", tmp_path / "regraded")
    assert result.exit_code == 0, result.output
    lost = f"{lines[0]['task_id']}/{lines[0]['trial']}"
    assert (
        f"1 simulations not regraded (an infrastructure error, or no stored trajectory): {lost}"
        in result.stdout
    )
    regraded = load_run(tmp_path / "regraded")
    assert len(regraded.records) == len(lines) - 1 and "verdicts that flip: 0" in result.stdout


def test_an_existing_output_is_refused_in_one_line(mock_run: Path, suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    before = tree_digest(mock_run)
    result = regrade(mock_run, "--suite", suite_file, "--out", out)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: --out {out}: not empty; choose another output directory"
    ]
    assert tree_digest(out) == {"keep.txt": hashlib.sha256(b"mine").hexdigest()}
    assert tree_digest(mock_run) == before


def test_an_output_another_process_is_writing_is_refused_and_left_alone(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "regraded"
    with RunDirectoryLock(out) as held:  # another regrade (or run) claimed it and has written nothing yet
        held.acquire()
        result = regrade(mock_run, "--suite", suite_file, "--out", out)
        assert result.exit_code == 2
        assert result.stderr == f"error: {out}: another tau2 run is using this directory\n"
        assert out.is_dir() and tree_digest(out) == {}  # the holder's directory is still there, untouched
    result = regrade(mock_run, "--suite", suite_file, "--out", out)
    assert result.exit_code == 0, result.output


def race(run_dir: Path, suite: Path, out: Path) -> list[str]:
    """Two regrades of `run_dir` into `out` started at the same instant, on two threads (each with its own
    claim on `out`, as two processes): how each ended."""
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def regrade_at_once() -> None:
        start.wait()
        try:
            regrade_suite(run_dir, suite, out)
            outcomes.append("done")
        except UserInputError as refusal:
            outcomes.append(str(refusal))
        except Exception as error:  # e.g. one regrade tripping over the other's files
            outcomes.append(f"{type(error).__name__}: {error}")

    racers = [threading.Thread(target=regrade_at_once) for _ in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    return sorted(outcomes)


def test_two_regrades_racing_into_one_new_output_leave_one_whole_run(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    simulations = len(load_run(mock_run).records)
    for round_number in range(8):
        out = tmp_path / f"race-{round_number}"
        refused, done = race(mock_run, suite_file, out)
        assert done == "done" and refused in (
            f"{out}: another tau2 run is using this directory",
            f"--out {out}: not empty; choose another output directory",
        ), (refused, done)
        assert len(load_run(out).records) == simulations  # the winner's run, whole


def test_a_file_without_any_task_of_the_run_is_refused(
    mock_run: Path, suite_file: Path, tmp_path: Path
) -> None:
    def rename_all(tasks: list[dict[str, Any]]) -> None:
        for task in tasks:
            task["id"] = "other-" + task["id"]

    changed = edited_suite(suite_file, tmp_path / "changed.json", rename_all)
    result = regrade(mock_run, "--suite", changed, "--out", tmp_path / "regraded")
    assert result.exit_code == 2
    assert (
        len(result.stderr.strip().splitlines()) == 1 and "defines none of the tasks of run" in result.stderr
    )
    assert not (tmp_path / "regraded").exists()


def test_a_file_of_another_domain_is_refused(
    mock_run: Path, conformance: Callable[[str], Path], tmp_path: Path
) -> None:
    airline = conformance("airline") / "tasks.json"
    result = regrade(mock_run, "--suite", airline, "--out", tmp_path / "regraded")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: --suite {airline}: its tasks are of domain airline; run "
        f"{load_run(mock_run).manifest.run_id} is of domain mock"
    ]


def test_airline_run_regraded_against_its_own_file_flips_nothing_and_against_the_revised_file_lists_the_flips(
    conformance: Callable[[str], Path], tmp_path: Path
) -> None:
    folder = conformance("airline")
    run_dir = tmp_path / "airline"
    made = runner.invoke(
        app,
        [
            "run",
            "--suite",
            str(folder / "tasks.json"),
            "--data-dir",
            str(folder),
            *OFFLINE,
            "--out",
            str(run_dir),
        ],
    )
    assert made.exit_code == 0, made.output
    same = regrade_suite(run_dir, folder / "tasks.json", tmp_path / "same")
    assert same.flips == [] and same.changed_tasks == [] and same.regraded == 50
    revised = regrade_suite(run_dir, folder / "tasks_v1.json", tmp_path / "revised")
    assert [flip.task_id for flip in revised.flips] == AIRLINE_FLIPS
    assert all(flip.before and not flip.after and flip.reasons for flip in revised.flips)
    assert len(revised.changed_tasks) == 29 and set(AIRLINE_FLIPS) <= set(revised.changed_tasks)
    assert revised.only_in_run == revised.only_in_suite == []
    assert load_run(tmp_path / "revised").manifest.reward_basis_source == "explicit"
