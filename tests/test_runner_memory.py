"""The runner keeps no finished record: each is written and dropped while later simulations run, the
summary comes from running totals, and a resume reads the store one record at a time."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path

import pytest
from fixtures.make_runs import failing_user
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from tau2.api import load_run_result
from tau2.cli import app
from tau2.config import ActorSpec, ConfigLayer, ExecutorConfig, RunConfig
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import Mode, TerminationReason, Verdict
from tau2.llm import ModelSpec
from tau2.runner import (
    Outcome,
    RunProgress,
    RunTotals,
    Tally,
    UnitQueue,
    drive,
    pending_units,
    prepare_run,
    run_summary,
)
from tau2.runs import (
    DAMAGED_FILE,
    RecordWriter,
    SimulationRecord,
    load_run,
    read_records,
    set_aside_damaged,
)
from tau2.runs._store import record_object
from tau2.testing import Reply, ScriptedOpenAIServer

OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
runner = CliRunner()


def run(*arguments: str) -> Result:
    return runner.invoke(app, ["run", *arguments])


def live_records() -> int:
    """Records still alive in this process."""
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, SimulationRecord))


class RecordCensus(RunProgress):
    """Counts the records alive, beyond those alive when it was made (other tests' may be), each time
    another fifty simulations have finished."""

    def __init__(self) -> None:
        self.before = live_records()
        self.alive: list[int] = []
        self._counted = 0

    def update(self, tally: Tally) -> None:
        if tally.done >= self._counted + 50:
            self._counted = tally.done
            self.alive.append(live_records() - self.before)


@pytest.mark.parametrize("workers", [1, 2])
def test_no_finished_record_stays_alive_while_later_simulations_run(
    suite_file: Path, tmp_path: Path, workers: int
) -> None:
    concurrency, trials = 8, 60  # 300 simulations of the 5 mock tasks
    config = RunConfig(
        suite=suite_file,
        agent=ActorSpec(kind="oracle"),
        user=ActorSpec(kind="scripted"),
        trials=trials,
        concurrency=concurrency,
        executor=ExecutorConfig(workers=workers),
    )
    prepared = prepare_run([ConfigLayer.of(config)], tmp_path / "run", resume=False)
    census = RecordCensus()
    asyncio.run(drive(prepared, census))
    assert len(census.alive) == trials * len(MOCK_TASKS) // 50
    assert max(census.alive) <= concurrency  # at most the simulations in flight, never the finished ones
    assert live_records() <= census.before
    assert len(read_records(tmp_path / "run" / "results.jsonl")[0]) == trials * len(MOCK_TASKS)


def record(index: int) -> SimulationRecord:
    return SimulationRecord(
        task_id=f"t{index}", trial=0, seed=index, mode=Mode.INTERACTIVE, reward=1.0,
        termination=TerminationReason.USER_STOP,
    )  # fmt: skip


async def test_records_reach_the_disk_while_a_producer_that_never_suspends_goes_on(tmp_path: Path) -> None:
    path, backlog = tmp_path / "results.jsonl", 4
    async with RecordWriter(path, backlog=backlog) as writer:
        for index in range(50):
            writer.write(record(index))
            await writer.room()
        # at most one batch queued and one being written: the rest is on disk already
        assert writer.written >= 50 - 2 * backlog
    assert [item.task_id for item in read_records(path)[0]] == [f"t{index}" for index in range(50)]


def reference_summary(out: Path) -> str:
    """The summary as it was built before the runner kept running totals: from every effective record."""
    run = load_run(out)
    totals = RunTotals(len(run.manifest.task_ids) * run.manifest.trials)
    for effective in run.records:
        totals.add(Outcome.of(effective))
    return run_summary(run.manifest, totals, out)


def test_a_resume_skips_done_units_and_its_summary_matches_the_stored_records(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    failing = {"both": "provider down after 3 attempts", "unplugged": "timed out after 12.5 s"}
    failing_user(
        monkeypatch,
        lambda context: failing.get(context.task.id) if (context.config.seed or 0) % 2 == 0 else None,
    )
    first = runner.invoke(
        app, ["run", "--suite", str(suite_file), *OFFLINE, "--trials", "4", "--out", str(out)]
    )
    assert first.exit_code == 0, first.output
    assert first.stdout.strip() == reference_summary(out)
    assert "infrastructure errors: the most common" in first.stdout
    written = len(read_records(out / "results.jsonl")[0])
    excluded = sum(record.excluded for record in load_run(out).records)
    assert excluded > 0

    failing["both"] = "provider down after 4 attempts"  # the re-runs fail again, with other figures
    resumed = run("--resume", "--trials", "6", "--out", str(out), "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout.strip() == reference_summary(out)
    # only the infrastructure errors and the two new trials ran again
    assert len(read_records(out / "results.jsonl")[0]) == written + excluded + 2 * len(MOCK_TASKS)

    monkeypatch.undo()  # the user starts as usual again
    final = run("--resume", "--out", str(out), "--quiet")
    assert final.exit_code == 0, final.output
    assert final.stdout.strip() == reference_summary(out)
    assert "simulations: 30/30 judged, 0 infrastructure errors, 0 not run" in final.stdout


def test_a_run_result_streams_the_effective_records_in_the_stored_order(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    failing_user(monkeypatch, lambda context: "provider down" if context.task.id == "both" else None)
    first = runner.invoke(
        app, ["run", "--suite", str(suite_file), *OFFLINE, "--trials", "2", "--out", str(out)]
    )
    assert first.exit_code == 0, first.output
    monkeypatch.undo()  # the user starts as usual again
    assert run("--resume", "--out", str(out), "--quiet").exit_code == 0
    result = load_run_result(out)
    streamed = list(result.records())
    assert streamed == load_run(out).records  # re-run units keep the place of their first record
    assert [record.task_id for record in streamed].index("both") < len(streamed) - 2  # not at the end
    assert run_summary(result.manifest, result.totals, out) == reference_summary(out)


_GOOD = record(1).model_dump_json().encode()
_LINES = st.lists(
    st.sampled_from([_GOOD, b"", b"  ", b"garbage}", b"\x00\x00", _GOOD + b"\r" + _GOOD, b"[1]", b"x\ry"]),
    max_size=12,
)


def whole_file_set_aside(data: bytes) -> tuple[bytes, bytes]:
    """What setting damaged lines aside made of a file when it read the file whole: (kept, set aside)."""
    kept, damaged = b"", b""
    for line in data.splitlines(keepends=True):
        if not line.strip() or record_object(line) is not None:
            kept += line
        else:
            damaged += line if line.endswith(b"\n") else line + b"\n"
    return kept, damaged


@given(lines=_LINES, last_newline=st.booleans())
def test_setting_damaged_lines_aside_line_by_line_moves_what_a_whole_file_read_moved(
    lines: list[bytes], last_newline: bool
) -> None:
    import tempfile

    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    kept, damaged = whole_file_set_aside(data)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "results.jsonl"
        path.write_bytes(data)
        moved = set_aside_damaged(path)
        assert path.read_bytes() == (kept if moved else data)
        sidecar = Path(directory) / DAMAGED_FILE
        assert (sidecar.read_bytes() if sidecar.exists() else b"") == damaged
    assert moved == len(damaged.splitlines()) if damaged else moved == 0


def live_verdicts() -> int:
    """Verdicts of the natural-language judge alive in this process."""
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, Verdict))


class VerdictCensus(RunProgress):
    """Counts the judge's verdicts alive, beyond those alive when it was made, each time another five
    simulations have finished."""

    def __init__(self) -> None:
        self.before = live_verdicts()
        self.alive: list[int] = []

    def update(self, tally: Tally) -> None:
        if tally.done and tally.done % 5 == 0 and len(self.alive) < tally.done // 5:
            self.alive.append(live_verdicts() - self.before)


def test_the_judge_keeps_no_verdict_of_a_finished_simulation(tmp_path: Path) -> None:
    verdict = {"results": [{"expectedOutcome": "x", "reasoning": "y", "metExpectation": True}]}
    with ScriptedOpenAIServer(lambda request: Reply.text(json.dumps(verdict))) as server:
        judge = ModelSpec(name="openai/judge", api_base=server.base_url, args={"api_key": "sk-test"})
        config = RunConfig(
            domain="airline",
            task_ids=["cancel_business"],
            agent=ActorSpec(kind="oracle"),
            user=ActorSpec(kind="scripted"),
            judge=judge,
            trials=30,
            concurrency=2,
        )
        prepared = prepare_run([ConfigLayer.of(config)], tmp_path / "run", resume=False)
        census = VerdictCensus()
        asyncio.run(drive(prepared, census))
        assert server.request_count == 30
    assert len(census.alive) == 6
    assert max(census.alive) <= 2  # the simulations in flight, one statement each


def test_the_unit_queue_makes_units_as_taken_and_hands_lost_ones_out_first() -> None:
    planned = pending_units(["a", "b"], 2, 5, [])
    queue = UnitQueue(iter(planned), len(planned))
    first, second = queue.take(), queue.take()
    assert len(queue) == 2
    queue.hand_back([first, second])
    assert len(queue) == 4
    assert [queue.take() for _ in range(len(queue))] == planned
