"""The run directory's store under damage and misuse: damaged lines set aside on resume, a full disk while
the manifest is written, trials added on resume, records stamped with their run and records that are not
part of the run left out of every report."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.errors import UserInputError
from tau2.runs import (
    DAMAGED_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    RunDirectoryLock,
    SimulationRecord,
    load_run,
    read_records,
)

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
TASKS = len(MOCK_TASKS)


def invoke(*arguments: str) -> Result:
    return runner.invoke(app, list(arguments))


def start(suite_file: Path, out: Path, *extra: str) -> None:
    result = invoke("run", "--suite", str(suite_file), *OFFLINE, "--out", str(out), *extra)
    assert result.exit_code == 0, result.output


def test_a_power_loss_tail_is_set_aside_and_the_run_stays_readable_and_resumable(
    suite_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    start(suite_file, out, "--trials", "2")
    results = out / RESULTS_FILE
    lines = results.read_bytes().splitlines(keepends=True)
    lost = json.loads(lines[-1])
    nul_line = b"\x00" * (len(lines[-1]) - 1) + b"\n"  # complete but unreadable: what a power loss leaves
    results.write_bytes(b"".join(lines[:-1]) + nul_line + b"garbage}\n")

    resumed = invoke("run", "--resume", "--out", str(out), "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert (
        f"warning: {results}: set aside 2 damaged lines in {out / DAMAGED_FILE}; their simulations run again"
        in resumed.stderr
    )
    assert (out / DAMAGED_FILE).read_bytes() == nul_line + b"garbage}\n"
    records, warnings = read_records(results)
    assert warnings == []
    assert len(records) == 2 * TASKS
    assert (records[-1].task_id, records[-1].trial) == (lost["task_id"], lost["trial"])
    for command in (["report", str(out)], ["view", str(out)], ["run", "--resume", "--out", str(out), "-q"]):
        again = invoke(*command)
        assert again.exit_code == 0, (command, again.output)
        assert "warning" not in again.stderr


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every atomic file write hit a full disk: its temporary is backed by /dev/full (ENOSPC)."""
    real = tempfile.mkstemp

    def on_full_disk(*arguments: str, **options: str) -> tuple[int, str]:
        descriptor, name = real(*arguments, **options)
        os.close(descriptor)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr(tempfile, "mkstemp", on_full_disk)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_while_a_new_run_writes_its_manifest_leaves_nothing(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for out in (tmp_path / "new", tmp_path / "existing"):
        if out.name == "existing":
            out.mkdir()
        with monkeypatch.context() as patched:
            full_disk(patched)
            refused = invoke("run", "--suite", str(suite_file), *OFFLINE, "--out", str(out))
        assert refused.exit_code == 3  # the machine refused, not the input
        assert refused.stderr == (
            f"error: {out / MANIFEST_FILE}: cannot write: No space left on device; nothing was recorded: "
            "free space and run the same command again\n"
        )
        assert (out.exists(), out.name) in ((False, "new"), (True, "existing"))
        assert not out.exists() or list(out.iterdir()) == []
        start(suite_file, out)
        assert len(load_run(out).records) == TASKS


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_while_a_resume_adds_trials_leaves_the_run_resumable(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    start(suite_file, out)
    manifest = (out / MANIFEST_FILE).read_bytes()
    with monkeypatch.context() as patched:
        full_disk(patched)
        refused = invoke("run", "--resume", "--trials", "2", "--out", str(out), "-q")
    assert refused.exit_code == 3  # the machine refused, not the input
    assert refused.stderr == (
        f"error: {out / MANIFEST_FILE}: cannot write: No space left on device; the run is unchanged: "
        "free space and resume again\n"
    )
    assert (out / MANIFEST_FILE).read_bytes() == manifest
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST_FILE, RESULTS_FILE]
    resumed = invoke("run", "--resume", "--trials", "2", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert len(load_run(out).records) == 2 * TASKS


def test_a_manifest_write_killed_midway_does_not_block_either_command(
    suite_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / ".manifest.json.k1ll3d.tmp").write_text('{"run_id": "hal')
    refused = invoke("run", "--resume", "--out", str(out))
    assert refused.exit_code == 2
    assert "nothing is recorded there: run without --resume" in refused.stderr
    start(suite_file, out)
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST_FILE, RESULTS_FILE]


def test_a_resume_adds_trials_running_only_the_new_ones(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    start(suite_file, out, "--trials", "2")
    before = (out / RESULTS_FILE).read_bytes()
    resumed = invoke("run", "--resume", "--trials", "4", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert f"simulations: {4 * TASKS}/{4 * TASKS} judged" in resumed.stdout
    assert (out / RESULTS_FILE).read_bytes().startswith(before)
    run = load_run(out)
    assert run.manifest.trials == 4
    added, _ = read_records(out / RESULTS_FILE)
    assert sorted({record.trial for record in added[2 * TASKS :]}) == [2, 3]
    assert len(added) == len(run.records) == 4 * TASKS
    assert {record.run_id for record in added} == {run.manifest.run_id}
    fewer = invoke("run", "--resume", "--trials", "3", "--out", str(out))
    assert fewer.exit_code == 2
    assert fewer.stderr == (
        f"error: {out}: cannot resume with --trials 3: the run plans 4 (a resume may add trials, never "
        "remove them)\n"
    )


def test_reports_leave_out_and_count_records_that_are_not_part_of_the_run(
    suite_file: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    start(suite_file, first, "--task-ids", "both,unplugged")
    start(suite_file, second, "--trials", "2")
    results = first / RESULTS_FILE
    with results.open("ab") as handle:  # two runs' files concatenated
        handle.write((second / RESULTS_FILE).read_bytes())
    run_id = load_run(first).manifest.run_id
    count = 2 * TASKS
    expected = (
        f"warning: {results}: left out {count} records not part of run {run_id}: {count} from another run"
    )
    for command in (["report", str(first)], ["view", str(first)], ["compare", str(first), str(second)]):
        result = invoke(*command)
        assert result.exit_code == 0, (command, result.output)
        assert expected in result.stderr.splitlines(), (command, result.stderr)
    assert len(load_run(first).records) == 2


def test_a_refused_claim_leaves_the_directory_it_did_not_create(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with RunDirectoryLock(out) as held:
        held.acquire()
        assert out.is_dir()
        with pytest.raises(UserInputError, match="another tau2 run is using this directory"):
            RunDirectoryLock(out).acquire()
        assert out.is_dir()
    with pytest.raises(RuntimeError), RunDirectoryLock(tmp_path / "fresh") as lock:
        lock.acquire()
        raise RuntimeError("the run failed before writing anything")
    assert not (tmp_path / "fresh").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(UserInputError, match="not a directory"):
        RunDirectoryLock(tmp_path / "file").acquire()


def test_a_records_summary_is_stored_once_and_old_records_with_two_copies_still_read(
    suite_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    start(suite_file, out)
    line = (out / RESULTS_FILE).read_bytes().splitlines()[0]
    stored = json.loads(line)
    summary = ("termination", "termination_detail", "steps", "usage")
    assert stored["trajectory"] is not None
    assert not set(summary) & set(stored["trajectory"])  # the record holds them; the trajectory does not
    record = SimulationRecord.model_validate_json(line)
    assert record.trajectory is not None
    for name in summary:
        assert getattr(record.trajectory, name) == getattr(record, name)
    assert record.trajectory.steps > 0
    old = {**stored, "trajectory": {**stored["trajectory"], **{name: stored.get(name) for name in summary}}}
    assert SimulationRecord.model_validate(old) == record  # records written before: both copies
    assert SimulationRecord.model_validate_json(record.model_dump_json()) == record


class FullDiskForResults:
    """The `os` module as the results writer sees it, with `results.jsonl` opened on /dev/full."""

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    @staticmethod
    def open(path: object, flags: int, mode: int = 0o777) -> int:
        if Path(str(path)).name == RESULTS_FILE:
            return os.open("/dev/full", os.O_WRONLY)
        return os.open(str(path), flags, mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_while_appending_records_is_one_line_and_the_run_resumes(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tau2.runs._store as store

    out = tmp_path / "run"
    with monkeypatch.context() as patched:
        patched.setattr(store, "os", FullDiskForResults())
        refused = invoke("run", "--suite", str(suite_file), *OFFLINE, "--out", str(out))
    assert refused.exit_code == 3  # the machine refused, not the input
    assert refused.stderr == (
        f"error: {out / RESULTS_FILE}: cannot append: No space left on device; the records written before "
        f"are kept: free space and continue with `tau2 run --resume --out {out}`\n"
    )
    resumed = invoke("run", "--resume", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert len(load_run(out).records) == TASKS


SEPARATORS = "\x85\u2028\u2029"
"""Line boundaries of `str.splitlines` that JSON encoders leave raw inside strings."""


def test_results_are_one_line_per_record_for_readers_that_split_on_every_line_boundary(
    tmp_path: Path,
) -> None:
    from tau2.domains.mock.tasks import UNPLUGGED
    from tau2.tasks import Suite
    from tau2.testing import Reply, ScriptedOpenAIServer

    suite = tmp_path / "suite.json"
    Suite(name="separators", domain="mock", tasks=[UNPLUGGED]).save(suite)
    said = f"one{SEPARATORS}two"
    out = tmp_path / "run"
    with ScriptedOpenAIServer([Reply.text(said), Reply.tool_call("done")]) as server:
        arguments = ["--mode", "solo", "--agent-model", "openai/m", "--agent-api-base", server.base_url]
        arguments += ["--agent-arg", "api_key=k"]
        result = invoke("run", "--suite", str(suite), "--out", str(out), "-q", *arguments)
    assert result.exit_code == 0, result.output
    text = (out / RESULTS_FILE).read_text(encoding="utf-8")
    assert not set(SEPARATORS) & set(text)
    assert [json.loads(line)["task_id"] for line in text.splitlines()] == ["unplugged"]
    (record,) = load_run(out).records
    assert said in json.dumps(record.model_dump(mode="json"), ensure_ascii=False), "the text as it was"

    raw = text.replace("\\u2028", "\u2028").replace("\\u2029", "\u2029").replace("\\u0085", "\x85")
    (out / RESULTS_FILE).write_text(raw, encoding="utf-8")  # as written before: separators raw
    assert len(raw.splitlines()) > 1 and load_run(out).records == [record], "old files still read"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
)


@given(JSON_VALUES)
def test_a_json_line_is_one_line_and_the_same_value(value: object) -> None:
    from tau2._jsonfile import json_line

    for separators in ((", ", ": "), (",", ":")):
        line = json_line(json.dumps(value, ensure_ascii=False, separators=separators))
        assert line.splitlines() == [line] and json.loads(line) == value
