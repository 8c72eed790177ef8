"""Experiments on every executor: the arms' units fed round by round to one event loop, worker processes
or Ray actors give the same records and the same verdict; a driver killed mid-experiment with worker
processes resumes with nothing lost, duplicated or changed."""

from __future__ import annotations

import asyncio
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
from test_runner_cli import untimed
from test_runner_workers import _alive
from typer.testing import CliRunner

from tau2.cli import app
from tau2.experiments._rounds import Rounds
from tau2.runner import ArmUnit, Unit, derive_seed
from tau2.runs import SimulationRecord, read_records
from tau2.testing import DELAY_VARIABLE, slowed_name

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "oracle-vs-transfer.toml"
SCALES = {"workers": ["--workers", "2"], "ray": ["--ray", "local", "--workers", "2"]}
ARMS = ("oracle", "transfer")


def item(arm: int, task: str, trial: int = 0) -> ArmUnit:
    return ArmUnit(arm=arm, unit=Unit(task_id=task, trial=trial, seed=0))


def record(unit: ArmUnit) -> SimulationRecord:
    return SimulationRecord(
        task_id=unit.unit.task_id, trial=unit.unit.trial, seed=0, mode="interactive", reward=1.0,
        termination="agent_stop",
    )  # fmt: skip


def test_a_round_is_asked_for_only_once_the_one_before_has_ended() -> None:
    rounds_asked: list[int] = []
    later = [[item(0, "b"), item(1, "b")], None]

    def next_round() -> list[ArmUnit] | None:
        rounds_asked.append(len(rounds_asked))
        return later[len(rounds_asked) - 1]

    async def scenario() -> list[str]:
        stream = Rounds(
            [item(0, "a"), item(1, "a")], 4, next_round=next_round, admit=lambda unit: True,
            finished=lambda unit, record: None,
        )  # fmt: skip
        first, second = await stream.take(), await stream.take()
        assert first is not None and second is not None
        waiting = asyncio.create_task(stream.take())
        await asyncio.sleep(0)
        assert not waiting.done() and rounds_asked == [], "the round has units in flight"
        stream.hand_back(second)  # its worker died: handed out again, same round
        assert await waiting == second
        stream.done(first, record(first))
        waiting = asyncio.create_task(stream.take())
        await asyncio.sleep(0)
        assert not waiting.done() and rounds_asked == []
        stream.done(second, record(second))
        taken = [await waiting, await stream.take()]
        assert rounds_asked == [0]
        for unit in taken:
            assert unit is not None
            stream.done(unit, record(unit))
        assert await stream.take() is None and rounds_asked == [0, 1]
        return [f"{unit.arm}{unit.unit.task_id}" for unit in [first, second, *taken] if unit is not None]

    assert asyncio.run(scenario()) == ["0a", "1a", "0b", "1b"]


def test_a_refused_unit_ends_the_stream_and_says_so() -> None:
    admitted: list[ArmUnit] = []

    def admit(unit: ArmUnit) -> bool:
        return len(admitted) < 1 and not admitted.append(unit)  # type: ignore[func-returns-value]

    async def scenario() -> tuple[ArmUnit | None, ArmUnit | None, bool]:
        stream = Rounds(
            [item(0, "a"), item(1, "a")], 2, next_round=lambda: None, admit=admit,
            finished=lambda unit, record: None,
        )  # fmt: skip
        return await stream.take(), await stream.take(), stream.refused

    first, second, refused = asyncio.run(scenario())
    assert first == item(0, "a") and second is None and refused


def experiment(out: Path, *extra: str) -> None:
    result = CliRunner().invoke(
        app, ["experiment", "run", str(EXAMPLE), "--out", str(out), "--quiet", *extra]
    )
    assert result.exit_code == 0, result.output


def arm_records(out: Path, arm: str) -> dict[tuple[str, int], dict[str, Any]]:
    records, warnings = read_records(out / arm / "results.jsonl")
    assert warnings == []
    units = Counter((r.task_id, r.trial) for r in records)
    assert set(units.values()) == {1}, "no unit recorded twice"
    return {(r.task_id, r.trial): untimed(r) for r in records}


def verdict(out: Path) -> list[dict[str, Any]]:
    """What each comparison of `tau2 experiment report --json` decides: the difference, its interval, its
    p-value, the flips and the verdict line."""
    report = CliRunner().invoke(app, ["experiment", "report", str(out), "--json"])
    assert report.exit_code == 0, report.output
    decided = ("arm", "delta_pass_hat_1", "ci", "p_value", "flips_to_pass", "flips_to_fail", "verdict")
    return [{key: c[key] for key in decided} for c in json.loads(report.stdout)["comparisons"]]


@pytest.fixture(scope="module")
def on_the_local_executor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "out"
    experiment(out)
    return out


@pytest.mark.parametrize("scale", list(SCALES))
def test_the_example_gives_the_same_records_and_verdict_on_every_executor(
    scale: str, on_the_local_executor: Path, tmp_path: Path
) -> None:
    if scale == "ray":
        pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    out = tmp_path / "out"
    experiment(out, *SCALES[scale])
    seeds = {}
    for arm in ARMS:
        records = arm_records(out, arm)
        assert len(records) == 159 * 2
        assert records == arm_records(on_the_local_executor, arm), f"arm {arm} differs"
        seeds[arm] = {unit: data["seed"] for unit, data in records.items()}
        assert all(seed == derive_seed(7, *unit) for unit, seed in seeds[arm].items())
    assert seeds["oracle"] == seeds["transfer"], "every (task, trial) has one seed in every arm"
    assert verdict(out) == verdict(on_the_local_executor)
    manifest = json.loads((out / "oracle" / "manifest.json").read_text())
    assert manifest["config"]["executor"]["kind"] == scale


def wait_for_records(process: subprocess.Popen[bytes], results: list[Path], count: int) -> None:
    deadline = time.monotonic() + 120
    while sum(path.read_bytes().count(b"\n") for path in results if path.exists()) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no records appeared"
        time.sleep(0.02)


def worker_processes(pid: int) -> list[int]:
    """The worker processes `pid` spawned (Linux /proc)."""
    return [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
        if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds worker processes through /proc")
def test_a_killed_driver_of_an_experiment_on_workers_resumes_losing_duplicating_and_changing_nothing(
    suite_file: Path, tmp_path: Path
) -> None:
    trials = 8
    exp = tmp_path / "exp.toml"
    exp.write_text(
        f'name = "killed"\nbaseline = "oracle"\n[base]\nsuite = "{suite_file}"\ntrials = {trials}\nseed = 5\n'
        f'concurrency = 4\nuser = {{ kind = "{slowed_name("scripted")}" }}\n'
        f'[[arms]]\nname = "oracle"\nagent = {{ kind = "{slowed_name("oracle")}" }}\n'
        f'[[arms]]\nname = "transfer"\nagent = {{ kind = "{slowed_name("transfer")}" }}\n'
    )
    out, reference = tmp_path / "out", tmp_path / "reference"
    experiment_run = [sys.executable, "-m", "tau2", "experiment", "run", str(exp), "--quiet"]
    uninterrupted = subprocess.run(
        [*experiment_run, "--out", str(reference)], capture_output=True, check=False
    )
    assert uninterrupted.returncode == 0, uninterrupted.stderr.decode()
    command = [*experiment_run, "--out", str(out), "--workers", "2"]
    slowed = {**os.environ, DELAY_VARIABLE: "0.05"}
    results = [out / arm / "results.jsonl" for arm in ARMS]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=slowed)
    try:
        wait_for_records(process, results, 12)
        workers = worker_processes(process.pid)
        assert len(workers) == 2, workers
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers):
        assert time.monotonic() < deadline, "workers outlived their driver"
        time.sleep(0.1)
    written = {path: path.read_bytes() for path in results}
    finished = {path: data[: data.rfind(b"\n") + 1] for path, data in written.items()}
    assert 12 <= sum(data.count(b"\n") for data in finished.values()) < 2 * 5 * trials

    resumed = subprocess.run([*command, "--resume"], capture_output=True, check=False, env=slowed)
    assert resumed.returncode == 0, resumed.stderr.decode()
    for arm, path in zip(ARMS, results, strict=True):
        assert path.read_bytes().startswith(finished[path]), "what was written stays as it was"
        assert arm_records(out, arm) == arm_records(reference, arm)
