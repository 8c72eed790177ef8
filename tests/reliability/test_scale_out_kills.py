"""`kill -9` in a scaled-out run or experiment, with worker processes (`--workers 2`) and with a local Ray
cluster (`--ray local --workers 2`): a worker killed mid-run, then the driver killed mid-run. No process the
driver started (workers, Ray's own processes) may outlive it, and the resumed run must end with every
simulation recorded exactly once (an experiment's, in every arm, equal to an uninterrupted run's)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_runner_cli import untimed
from test_runner_workers import _alive

from tau2.runs import MANIFEST_FILE, RESULTS_FILE, read_records
from tau2.testing import DELAY_VARIABLE, slowed_name

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="follows processes in /proc")

SLOWED = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted"), "--quiet"]
"""The offline seats, waiting before each turn where `DELAY_VARIABLE` is set (the killed sessions)."""
SCALES = {"workers": ["--workers", "2"], "ray": ["--ray", "local", "--workers", "2"]}
WORKER_COMMANDS = {"workers": b"spawn_main", "ray": b"ray::SimulationActor"}
"""What the command line of a worker process of each scale holds."""


def descendants(pid: int) -> dict[int, str]:
    """Every process below `pid` in the process tree, with its command line."""
    found: dict[int, str] = {}
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
            for child in children:
                if child not in found:
                    found[child] = command_line(child)
                    waiting.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return "?"


def records_written(out: Path) -> int:
    results = out / RESULTS_FILE
    return results.read_bytes().count(b"\n") if results.exists() else 0


def wait_for_more_records(process: subprocess.Popen[bytes], out: Path, more: int) -> None:
    """Wait until `more` records beyond those already written appear (the run must still be going)."""
    target = records_written(out) + more
    deadline = time.monotonic() + 300
    while records_written(out) < target:
        assert process.poll() is None, process.communicate()[1].decode()[-2000:]
        assert time.monotonic() < deadline, "no records appeared"
        time.sleep(0.05)


def wait_until_gone(pids: dict[int, str]) -> dict[int, str]:
    """The processes of `pids` still running once those that are going to exit have had time to."""
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return {pid: command for pid, command in pids.items() if _alive(pid)}


def kill_leftovers(pids: dict[int, str]) -> None:
    """Do not let a failed test leave processes behind."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("scale", list(SCALES))
def test_kill_nine_of_workers_and_driver_leaves_no_process_and_resumes_without_loss(
    scale: str, suite_file: Path, tmp_path: Path, reliability_scale: Any
) -> None:
    if scale == "ray":
        pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    from tau2.domains.mock.tasks import MOCK_TASKS

    driver_kills = reliability_scale.pick(1, 4)
    trials = reliability_scale.pick(40, 120)
    out = tmp_path / "run"
    command = [sys.executable, "-m", "tau2", "run", "--suite", str(suite_file), *SLOWED]
    command += ["--trials", str(trials), "--concurrency", "4", "--out", str(out), *SCALES[scale]]
    slowed = {**os.environ, DELAY_VARIABLE: "0.05"}
    watched: dict[int, str] = {}
    survivors: dict[int, str] = {}
    worker_kills = 0
    try:
        for _ in range(driver_kills):
            resume = ["--resume"] if (out / MANIFEST_FILE).exists() else []
            process = subprocess.Popen(
                [*command, *resume], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=slowed
            )
            wait_for_more_records(process, out, 4)
            workers = [
                pid
                for pid, line in descendants(process.pid).items()
                if WORKER_COMMANDS[scale] in line.encode()
            ]
            assert workers, descendants(process.pid)
            os.kill(workers[0], signal.SIGKILL)
            worker_kills += 1
            wait_for_more_records(process, out, 8)  # the run went on after losing a worker
            tree = descendants(process.pid)
            watched |= tree
            os.kill(process.pid, signal.SIGKILL)
            assert process.wait(timeout=30) == -signal.SIGKILL
            survivors |= wait_until_gone(tree)
        finished = subprocess.run([*command, "--resume"], capture_output=True, timeout=900)
        assert finished.returncode == 0, finished.stderr.decode()[-2000:]
    finally:
        kill_leftovers(survivors)
    records, warnings = read_records(out / RESULTS_FILE)
    units = Counter((record.task_id, record.trial) for record in records)
    expected = {(task.id, trial) for task in MOCK_TASKS for trial in range(trials)}
    lost = len(expected - units.keys())
    duplicated = sum(count - 1 for count in units.values())
    print(
        f"RELIABILITY: scale-out kills ({scale}): {worker_kills} worker kills, {driver_kills} driver kills, "
        f"{len(watched)} processes watched, {len(survivors)} outlived their driver, "
        f"{len(expected)} simulations, {lost} lost, {duplicated} duplicated"
    )
    assert survivors == {}, f"processes outlived their driver: {survivors}"
    assert warnings == []
    assert (lost, duplicated) == (0, 0)
    assert set(units) == expected


@pytest.mark.parametrize("scale", list(SCALES))
def test_kill_nine_of_workers_and_driver_of_an_experiment_resumes_losing_duplicating_changing_nothing(
    scale: str, suite_file: Path, tmp_path: Path, reliability_scale: Any
) -> None:
    if scale == "ray":
        pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    from tau2.domains.mock.tasks import MOCK_TASKS

    driver_kills = reliability_scale.pick(1, 3)
    trials = reliability_scale.pick(20, 60)
    arms = ("oracle", "transfer")
    exp = tmp_path / "exp.toml"
    exp.write_text(
        f'name = "kills"\nbaseline = "oracle"\n[base]\nsuite = "{suite_file}"\ntrials = {trials}\nseed = 9\n'
        f'concurrency = 4\nuser = {{ kind = "{slowed_name("scripted")}" }}\n'
        + "".join(f'[[arms]]\nname = "{arm}"\nagent = {{ kind = "{slowed_name(arm)}" }}\n' for arm in arms)
    )
    out, reference = tmp_path / "out", tmp_path / "reference"
    experiment = [sys.executable, "-m", "tau2", "experiment", "run", str(exp), "--quiet"]
    uninterrupted = subprocess.run([*experiment, "--out", str(reference)], capture_output=True, timeout=900)
    assert uninterrupted.returncode == 0, uninterrupted.stderr.decode()[-2000:]
    command = [*experiment, "--out", str(out), *SCALES[scale]]
    slowed = {**os.environ, DELAY_VARIABLE: "0.05"}
    survivors: dict[int, str] = {}
    worker_kills = 0
    try:
        for _ in range(driver_kills):
            resume = ["--resume"] if (out / "experiment.json").exists() else []
            process = subprocess.Popen(
                [*command, *resume], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=slowed
            )
            wait_for_more_records(process, out / arms[0], 4)
            workers = [
                pid
                for pid, line in descendants(process.pid).items()
                if WORKER_COMMANDS[scale] in line.encode()
            ]
            assert workers, descendants(process.pid)
            os.kill(workers[0], signal.SIGKILL)
            worker_kills += 1
            wait_for_more_records(process, out / arms[0], 4)  # the experiment went on after losing a worker
            tree = descendants(process.pid)
            os.kill(process.pid, signal.SIGKILL)
            assert process.wait(timeout=30) == -signal.SIGKILL
            survivors |= wait_until_gone(tree)
        finished = subprocess.run([*command, "--resume"], capture_output=True, timeout=900)
        assert finished.returncode == 0, finished.stderr.decode()[-2000:]
    finally:
        kill_leftovers(survivors)
    assert survivors == {}, f"processes outlived their driver: {survivors}"
    expected = {(task.id, trial) for task in MOCK_TASKS for trial in range(trials)}
    lost = duplicated = different = 0
    for arm in arms:
        records, warnings = read_records(out / arm / RESULTS_FILE)
        assert warnings == []
        units = Counter((record.task_id, record.trial) for record in records)
        lost += len(expected - units.keys())
        duplicated += sum(count - 1 for count in units.values())
        got = {(record.task_id, record.trial): untimed(record) for record in records}
        want = {(r.task_id, r.trial): untimed(r) for r in read_records(reference / arm / RESULTS_FILE)[0]}
        different += sum(1 for unit in want.keys() & got.keys() if want[unit] != got[unit])
    print(
        f"RELIABILITY: experiment kills ({scale}): {worker_kills} worker kills, {driver_kills} driver kills, "
        f"{2 * len(expected)} simulations, {lost} lost, {duplicated} duplicated, {different} different"
    )
    assert (lost, duplicated, different) == (0, 0, 0)
