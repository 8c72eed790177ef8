"""A `kill -9` soak: a slowed offline run killed at random moments and resumed each time until it is
complete, then compared with an uninterrupted run of the same configuration: no record lost, duplicated
or different (timing fields and the run id aside)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from test_runner_cli import untimed

from tau2.runs import MANIFEST_FILE, RESULTS_FILE, SimulationRecord, load_run, read_records
from tau2.testing import DELAY_VARIABLE, slowed_name

SLOWED = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted"), "--quiet"]
"""The offline seats, waiting before each turn where `DELAY_VARIABLE` is set (the soaked sessions)."""


def by_unit(records: list[SimulationRecord]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(record.task_id, record.trial): untimed(record) for record in records}


def test_kill_nine_at_random_moments_then_resume_loses_duplicates_and_changes_nothing(
    suite_file: Path, tmp_path: Path, reliability_scale: Any
) -> None:
    from tau2.domains.mock.tasks import MOCK_TASKS

    kills_wanted = reliability_scale.pick(2, 12)
    trials = reliability_scale.pick(12, 80)
    simulations = len(MOCK_TASKS) * trials
    configuration = ["--suite", str(suite_file), *SLOWED, "--trials", str(trials), "--concurrency", "4"]
    command = [sys.executable, "-m", "tau2", "run", *configuration]
    reference, soaked = tmp_path / "reference", tmp_path / "soaked"
    uninterrupted = subprocess.run([*command, "--out", str(reference)], capture_output=True, text=True)
    assert uninterrupted.returncode == 0, uninterrupted.stderr

    moments = random.Random(20260601)
    slowed = {**os.environ, DELAY_VARIABLE: "0.02"}
    kills = sessions = 0
    while True:
        started = (soaked / MANIFEST_FILE).exists()  # a kill before the manifest leaves nothing to resume
        resume = ["--resume"] if started else []
        process = subprocess.Popen(
            [*command, "--out", str(soaked), *resume],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=slowed,
        )
        sessions += 1
        if kills < kills_wanted:
            time.sleep(moments.uniform(0.5, 1.5))
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                kills += 1
        _, stderr = process.communicate(timeout=600)
        if process.returncode == 0:
            break
        assert process.returncode == -signal.SIGKILL, stderr.decode()

    records, warnings = read_records(soaked / RESULTS_FILE)
    assert warnings == []
    units = Counter((record.task_id, record.trial) for record in records)
    duplicated = sum(count - 1 for count in units.values())
    expected = by_unit(load_run(reference).records)
    got = by_unit(load_run(soaked).records)
    lost = len(expected.keys() - got.keys())
    different = sum(1 for unit in expected.keys() & got.keys() if expected[unit] != got[unit])
    print(
        f"RELIABILITY: kill soak: {kills} kills, {sessions} sessions, {simulations} simulations, "
        f"{lost} lost, {duplicated} duplicated, {different} different"
    )
    assert kills == kills_wanted, "the run finished before every planned kill: make it longer"
    assert (lost, duplicated, different) == (0, 0, 0)
    assert len(got) == len(expected) == simulations
