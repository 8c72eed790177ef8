"""Readers stream: `load_run` indexes `results.jsonl` in one pass and reads records one at a time; reports
fold them into per-task aggregates equal to those of the whole record list, hold none of them, and show
the trials infrastructure errors left missing (with pass^k's bounds and the tasks left with none)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from fixtures.make_runs import APN, INFRA, ROAMING, WIFI, manifest, record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2._jsonfile import write_json
from tau2.cli import app
from tau2.episode import Mode
from tau2.metrics import Bootstrap, RunTally, task_outcomes
from tau2.report import build_comparison, build_report, read_report
from tau2.runs import (
    MANIFEST_FILE,
    RESULTS_FILE,
    RecordHead,
    Run,
    SimulationRecord,
    load_run,
    read_records,
    run_records,
)

TASKS = [ROAMING, APN, WIFI]
TRIALS = 3
BOOTSTRAP = Bootstrap(samples=20)

Line = tuple[int, int, bool | None] | None
"""A results line: (task index, trial, outcome: None an infrastructure error), or None: a damaged line."""

lines_strategy = st.lists(
    st.one_of(
        st.tuples(
            st.integers(0, len(TASKS) - 1), st.integers(0, TRIALS - 1), st.sampled_from([True, False, INFRA])
        ),
        st.none(),
    ),
    max_size=25,
)


def write_run(directory: Path, lines: list[Line], run_id: str = "run-stream") -> Path:
    """A run directory whose results hold `lines` in order (damaged lines as torn JSON)."""
    directory.mkdir(parents=True, exist_ok=True)
    write_json(directory / MANIFEST_FILE, manifest(run_id, Mode.INTERACTIVE, TASKS, TRIALS, "missing.json"))
    with (directory / RESULTS_FILE).open("w", encoding="utf-8") as results:
        for line in lines:
            if line is None:
                results.write('{"task_id": "torn\n')
                continue
            task, trial, outcome = line
            stamped = record(TASKS[task], trial, Mode.INTERACTIVE, outcome).model_copy(
                update={"run_id": run_id}
            )
            results.write(stamped.model_dump_json() + "\n")
    return directory


def in_memory(directory: Path) -> Run:
    """The run as the whole-list reader has it: every record parsed, then the last of each unit kept."""
    run = load_run(directory)
    results = directory / RESULTS_FILE
    records, warnings = read_records(results)
    effective, excluded = run_records(run.manifest, records, results)
    return Run(path=directory, manifest=run.manifest, records=effective, warnings=[*warnings, *excluded])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines_strategy)
def test_streamed_aggregates_equal_those_of_the_whole_record_list(
    tmp_path_factory, lines: list[Line]
) -> None:
    directory = write_run(tmp_path_factory.mktemp("run"), lines)
    streamed, whole = load_run(directory), in_memory(directory)
    assert streamed.warnings == whole.warnings
    assert list(streamed.records) == list(whole.records)
    if not whole.records:
        return
    assert build_report(streamed, BOOTSTRAP) == build_report(whole, BOOTSTRAP)
    folded_run, folded = read_report(
        directory, BOOTSTRAP
    )  # heads folded while indexing, refolded if replaced
    assert folded_run.warnings == whole.warnings
    assert list(folded_run.records) == list(whole.records)
    assert folded == build_report(whole, BOOTSTRAP)
    last: dict[tuple[int, int], bool | None] = {}
    for line in lines:
        if line is not None:
            last[line[0], line[1]] = line[2]
    outcomes = {outcome.task_id: outcome for outcome in task_outcomes(streamed.records)}
    for index, task_id in enumerate(TASKS):
        ended = [outcome for (task, _), outcome in last.items() if task == index]
        if not ended:
            assert task_id not in outcomes
            continue
        got = outcomes[task_id]
        assert (got.trials, got.successes, got.excluded) == (
            sum(outcome is not INFRA for outcome in ended),
            sum(outcome is True for outcome in ended),
            sum(outcome is INFRA for outcome in ended),
        )
    missing = build_report(streamed, BOOTSTRAP).missing
    assert missing is not None
    assert missing.trials == sum(outcome is INFRA for outcome in last.values())
    assert missing.all_missing == [
        task_id for task_id, outcome in outcomes.items() if outcome.excluded and not outcome.trials
    ]


def live(kind: type[RecordHead]) -> int:
    """How many objects of `kind` (records, or heads, which records are too) are alive now."""
    gc.collect()
    return sum(isinstance(thing, kind) for thing in gc.get_objects())


@pytest.mark.parametrize("reader", ["build_report", "read_report"])
def test_a_report_holds_no_record_and_builds_no_transcript(tmp_path: Path, reader: str) -> None:
    """Heads are read, folded and let go one at a time: at no point do two of the run's live at once, and
    no whole record (with its transcript) is ever built."""
    lines: list[Line] = [(task, trial, trial != 1) for task in range(len(TASKS)) for trial in range(TRIALS)]
    directory = write_run(tmp_path / "run", lines)
    before = (live(RecordHead), live(SimulationRecord))  # other tests' records may be alive: count from here
    seen: list[tuple[int, int]] = []
    original = RunTally.add

    def counting(tally: RunTally, added: RecordHead) -> object:
        seen.append((live(RecordHead) - before[0], live(SimulationRecord) - before[1]))
        return original(tally, added)

    RunTally.add = counting  # type: ignore[method-assign]
    try:
        if reader == "read_report":
            report = read_report(directory, BOOTSTRAP)[1]
        else:
            report = build_report(load_run(directory), BOOTSTRAP)
    finally:
        RunTally.add = original  # type: ignore[method-assign]
    assert report.totals.simulations == len(lines) == len(seen)
    assert max(heads for heads, _ in seen) == 1
    assert max(records for _, records in seen) == 0
    assert (live(RecordHead), live(SimulationRecord)) == before


def test_the_run_is_read_from_disk_when_iterated_not_held(tmp_path: Path) -> None:
    directory = write_run(tmp_path / "run", [(0, 0, True), (1, 0, False)])
    run = load_run(directory)
    assert not isinstance(run.records, list)
    with (directory / RESULTS_FILE).open("a", encoding="utf-8") as results:
        results.write("appended after the index: not part of this reading\n")
    assert [r.task_id for r in run.records] == [ROAMING, APN]
    assert run.records[1].task_id == APN


ALL_ERRORED: list[Line] = [
    (0, 0, True),
    (0, 1, True),
    (0, 2, False),
    (1, 0, INFRA),
    (1, 1, INFRA),
    (1, 2, INFRA),
    (2, 0, True),
    (2, 1, INFRA),
    (2, 2, True),
]
"""Task 1 errored on every trial; task 2 on one of three."""


def test_report_shows_missing_trials_with_bounds_and_lists_the_task_that_never_ran(tmp_path: Path) -> None:
    directory = write_run(tmp_path / "run", ALL_ERRORED)
    report = build_report(load_run(directory), BOOTSTRAP)
    assert report.missing is not None
    assert (report.missing.trials, report.missing.tasks, report.missing.all_missing) == (4, 2, [APN])
    first = report.missing.bounds["1"]
    # All missing failed: (2/3 + 0 + 2/3) / 3; all passed: (2/3 + 1 + 1) / 3.
    assert (first.low, first.high, first.tasks) == (4 / 9, 8 / 9, 3)
    assert report.pass_hat_k["1"].tasks == 2  # pass^k itself reads valid trials only

    as_json = CliRunner().invoke(app, ["report", str(directory), "--json", "--bootstrap-samples", "20"])
    assert as_json.exit_code == 0, as_json.output
    document = json.loads(as_json.stdout)
    assert document["missing"]["all_missing"] == [APN]
    assert document["missing"]["bounds"]["1"] == {"low": 4 / 9, "high": 8 / 9, "tasks": 3}

    terminal = CliRunner().invoke(app, ["report", str(directory), "--bootstrap-samples", "20"])
    assert terminal.exit_code == 0, terminal.output
    assert "Missing trials" in terminal.stdout and "4 in 2 tasks" in terminal.stdout
    assert "0.444 – 0.889 (3 tasks)" in terminal.stdout
    assert "tasks with no valid trial" in terminal.stdout and "[mms]apn_mms_missing" in terminal.stdout

    page = tmp_path / "report.html"
    html = CliRunner().invoke(
        app, ["report", str(directory), "--html", str(page), "--bootstrap-samples", "20"]
    )
    assert html.exit_code == 0, html.output
    text = page.read_text(encoding="utf-8")
    assert "Missing trials" in text and "[mms]apn_mms_missing" in text and "0.444 – 0.889" in text


def test_compare_shows_each_runs_missing_trials_and_the_task_that_never_ran(tmp_path: Path) -> None:
    complete: list[Line] = [(task, trial, True) for task in range(len(TASKS)) for trial in range(TRIALS)]
    a = write_run(tmp_path / "a", complete, run_id="run-a")
    b = write_run(tmp_path / "b", ALL_ERRORED, run_id="run-b")
    report = build_comparison(load_run(a), load_run(b), None, BOOTSTRAP)
    assert report.missing["a"].trials == 0
    assert (report.missing["b"].trials, report.missing["b"].all_missing) == (4, [APN])
    assert report.missing["b"].bounds["1"].low == 4 / 9

    as_json = CliRunner().invoke(app, ["compare", str(a), str(b), "--json", "--bootstrap-samples", "20"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout)["missing"]["b"]["all_missing"] == [APN]

    terminal = CliRunner().invoke(app, ["compare", str(a), str(b), "--bootstrap-samples", "20"])
    assert terminal.exit_code == 0, terminal.output
    assert "Missing trials" in terminal.stdout and "4 in 2 tasks" in terminal.stdout
    assert "[mms]apn_mms_missing" in terminal.stdout


def test_view_reads_only_the_simulation_it_shows(tmp_path: Path) -> None:
    directory = write_run(tmp_path / "run", [(0, 0, True), (1, 0, False), (2, 0, False)])
    results = directory / RESULTS_FILE
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    broken = json.loads(lines[2])
    broken["steps"] = "many"  # a record no reader can validate: only reading it fails
    lines[2] = json.dumps(broken) + "\n"
    results.write_text("".join(lines), encoding="utf-8")
    shown = CliRunner().invoke(app, ["view", str(directory), "--failed"])
    assert shown.exit_code == 0, shown.output
    assert "[mms]apn_mms_missing" in shown.stdout
    beyond = CliRunner().invoke(app, ["view", str(directory), "--failed", "--index", "2"])
    assert beyond.exit_code == 2 and f"{results}:3: steps" in beyond.output
