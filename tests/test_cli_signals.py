"""Ctrl-C, SIGTERM and SIGHUP sent to a real `tau2` process: one line, exit 128 + N, no traceback, and the
simulations finished before the signal stay recorded; also when the signal comes right after start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import SerializerFunctionWrapHandler, model_serializer

from tau2.cli import _signals
from tau2.episode import Mode, TerminationReason
from tau2.experiments import ExperimentStop
from tau2.runs import RecordHead, RecordWriter, SimulationRecord
from tau2.testing import DELAY_VARIABLE, slowed_name

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SUITE = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _start(out: Path, turn_delay: float, *extra: str) -> subprocess.Popen[bytes]:
    """`python -m tau2 run` on the mock suite, each actor turn slowed down so the run is still going."""
    command = [sys.executable, "-m", "tau2", "run", "--suite", str(SUITE), "--agent", slowed_name("oracle")]
    command += ["--user", slowed_name("scripted"), "--quiet", "--out", str(out), *extra]
    env = {**os.environ, "PYTHONPATH": str(SUITE.parents[3]), DELAY_VARIABLE: str(turn_delay)}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _wait_for_records(out: Path, timeout: float = 60.0) -> None:
    """Block until the run has recorded at least one simulation."""
    results = out / "results.jsonl"
    deadline = time.monotonic() + timeout
    while not (results.is_file() and results.stat().st_size > 0):
        assert time.monotonic() < deadline, "the run recorded nothing"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_signal_during_a_run_stops_it_with_one_line_and_keeps_the_records(
    signum: int, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    process = _start(out, turn_delay=0.2)
    _wait_for_records(out)
    recorded = (out / "results.jsonl").read_bytes()
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum
    lines = stderr.decode().splitlines()
    assert lines == [
        f"interrupted by {signal.Signals(signum).name}: finished simulations are saved; "
        f"`tau2 run --resume --out {out}` continues"
    ]
    assert (out / "results.jsonl").read_bytes().startswith(recorded)
    assert stdout == b""


def _wait_for_handlers(process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Block until the process catches SIGTERM (Linux's SigCgt mask): tau2's first statement installs its
    handlers, so from here on every signal is tau2's to handle, while the CLI is still importing."""
    status = Path(f"/proc/{process.pid}/status")
    bit = 1 << (signal.SIGTERM - 1)
    deadline = time.monotonic() + timeout
    while True:
        caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) & bit:
            return
        assert time.monotonic() < deadline, "tau2 never installed its signal handlers"
        time.sleep(0.001)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("delay", [0.0, 0.01, 0.05, 0.2])
def test_signal_while_starting_prints_one_line_not_a_traceback(
    signum: int, delay: float, tmp_path: Path
) -> None:
    """The first half second is spent importing; a signal then (sent as soon as tau2's code runs, or a
    little later) ends the process at once with one line and 128 + N."""
    process = _start(tmp_path / "run", turn_delay=0.5)
    _wait_for_handlers(process)
    time.sleep(delay)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    text = stderr.decode()
    assert process.returncode == 128 + signum, text
    assert text.startswith(f"interrupted by {signal.Signals(signum).name}") and len(text.splitlines()) == 1
    assert stdout == b""


def test_workers_stop_with_their_parent_and_say_nothing(tmp_path: Path) -> None:
    """With worker processes, only the parent speaks: one line, 143, the records kept."""
    out = tmp_path / "run"
    process = _start(out, 0.2, "--workers", "2", "--trials", "3")
    _wait_for_records(out)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143
    assert stderr.decode().splitlines() == [
        f"interrupted by SIGTERM: finished simulations are saved; `tau2 run --resume --out {out}` continues"
    ]


def test_library_use_leaves_the_signal_handlers_alone() -> None:
    """Importing the CLI in another program (here pytest) must not take over its signals."""
    assert not _signals.running_command_line()
    assert signal.getsignal(signal.SIGTERM) is not _signals._handle


def test_importing_tau2_loads_nothing_until_used() -> None:
    """The CLI installs its handlers right after `import tau2`, so that import must stay instant; the
    re-exported API still resolves on first use."""
    code = (
        "import sys, tau2; loaded = sorted(m for m in sys.modules if m.startswith('tau2.')); "
        "assert loaded == [], loaded; "
        "from tau2 import World, verify_task; import tau2 as t; assert t.world.World is World; "
        "assert all(getattr(t, name) is not None for name in t.__all__)"
    )
    env = {**os.environ, "PYTHONPATH": str(SUITE.parents[3])}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr


SIGNAL_IN_A_TASK = """
import asyncio, gc, logging, signal
from tau2.cli import _signals

async def worker(number):
    await asyncio.sleep(0.01 * number)
    if number == 1:
        raise _signals.Interrupted(signal.SIGINT)
    await asyncio.sleep(1)

async def run():
    async with asyncio.TaskGroup() as group:
        for number in range(3):
            group.create_task(worker(number))

logging.getLogger("asyncio").addFilter(_signals.QuietInterruptions())
with _signals.command_running():
    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        print("interrupted")
gc.collect()
"""


def test_a_signal_inside_a_run_task_leaves_no_asyncio_report() -> None:
    """A signal can land in one of a run's tasks while another awaits it; asyncio would then report the
    awaiting task's exception as never retrieved, after the command's one line."""
    result = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_A_TASK], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stdout == "interrupted\n"
    assert result.stderr == ""


class SignalledWhileSerialised(SimulationRecord):
    """A record during whose serialisation a signal arrives (once per test), as Ctrl-C can at any bytecode:
    here inside the serialiser's own callback, where pydantic would report the raised interruption as an
    error of the record."""

    signum: ClassVar[int | None] = None

    @model_serializer(mode="wrap")
    def _omit_unset_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = RecordHead._omit_unset_fields(self, handler)  # type: ignore[operator]
        signum, type(self).signum = type(self).signum, None
        if signum is not None:
            signal.raise_signal(signum)
        return data


def finished_record(task_id: str = "t1") -> SimulationRecord:
    return SimulationRecord(
        task_id=task_id, trial=0, seed=7, mode=Mode.SOLO, reward=1.0, termination=TerminationReason.AGENT_STOP
    )


@contextmanager
def command_line_handler(signum: int) -> Iterator[None]:
    """The command line's own handler for `signum`, inside a running command, as in the `tau2` process."""
    previous = signal.signal(signum, _signals._handle)
    try:
        with _signals.command_running():
            yield
    finally:
        signal.signal(signum, previous)


async def test_a_signal_landing_while_a_record_is_serialised_stops_after_it_is_written_whole(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results.jsonl"
    record = finished_record()
    SignalledWhileSerialised.signum = signal.SIGTERM
    with command_line_handler(signal.SIGTERM), pytest.raises(_signals.Interrupted) as raised:
        async with RecordWriter(results) as writer:
            writer.write(SignalledWhileSerialised.model_validate(record.model_dump()))
            writer.write(finished_record("t2"))  # never reached: the signal stops the producer
    assert raised.value.signum == signal.SIGTERM
    assert results.read_text().splitlines() == [record.model_dump_json()]  # whole, not a stand-in


def test_an_experiment_interrupted_while_a_record_is_serialised_is_not_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from tau2.cli import app
    from tau2.experiments import load_experiment
    from tau2.runs import load_run

    written = RecordWriter.write
    records_seen: list[str] = []

    def third_signalled(writer: RecordWriter, record: SimulationRecord) -> SimulationRecord:
        records_seen.append(record.task_id)
        if len(records_seen) == 3:  # one signal only: a second would end the process, as in `tau2`
            SignalledWhileSerialised.signum = signal.SIGTERM
            record = SignalledWhileSerialised.model_validate(record.model_dump())
        return written(writer, record)

    monkeypatch.setattr(RecordWriter, "write", third_signalled)
    experiment = Path(__file__).resolve().parents[1] / "docs" / "examples" / "oracle-vs-transfer.toml"
    out = tmp_path / "exp"
    with command_line_handler(signal.SIGTERM):
        result = CliRunner().invoke(app, ["experiment", "run", str(experiment), "--out", str(out), "--quiet"])
    assert result.exit_code == 128 + signal.SIGTERM, result.output
    assert result.stderr.startswith("interrupted by SIGTERM")
    status = load_experiment(out).status
    assert status is not None and status.stopped is ExperimentStop.INTERRUPTED
    records = [record for arm in ("oracle", "transfer") for record in load_run(out / arm).records]
    assert len(records) == 3 and not any(record.excluded for record in records)  # whole, no stand-in


def test_a_signal_a_library_wraps_in_its_own_error_still_stops_with_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A signal landing while pydantic builds a schema comes out as pydantic's `SchemaError` holding the
    interruption: the command line still says it was interrupted, not that something unexpected failed."""
    from pydantic_core import SchemaError

    from tau2.cli import run_reporting_errors

    def command() -> None:
        try:
            signal.raise_signal(signal.SIGTERM)  # the handler raises inside the command, as from outside
        except _signals.Interrupted as interruption:
            raise SchemaError(f'Error building "enum" validator: Interrupted: {interruption}') from None

    previous = signal.signal(signal.SIGTERM, _signals._handle)
    try:
        code = run_reporting_errors(command)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 128 + signal.SIGTERM
    assert capsys.readouterr().err.splitlines() == ["interrupted by SIGTERM: stopped"]
