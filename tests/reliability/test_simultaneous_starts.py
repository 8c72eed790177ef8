"""Simultaneous starts on one run directory through the real CLI: pairs and triples of `tau2 run`, fresh
and resumed, released together from a barrier. Exactly one proceeds; every other one prints one line and
exits 2; the store holds no duplicate and the manifest parses."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tau2.runs import MANIFEST_FILE, RESULTS_FILE, load_manifest, read_records
from tau2.testing import DELAY_VARIABLE, slowed_name

SLOWED = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted"), "--quiet"]
TRIALS = 2
BARRIER = """
import sys, time
from pathlib import Path
import tau2.cli, tau2.runner  # imported before the barrier, so the processes race at the claim itself
from tau2.cli import main
ready, go = Path(sys.argv[1]), Path(sys.argv[2])
ready.touch()
while not go.exists():
    time.sleep(0.0005)
sys.exit(main(sys.argv[3:]))
"""
ROUND_KINDS = (("fresh", 2), ("fresh", 3), ("resume", 2), ("resume", 3))
"""Each round of the full suite plays all four; the fast subset a fresh pair and a resumed triple."""
REFUSALS = ("another tau2 run is using this directory", "not empty; add --resume")


def race(arguments: list[str], contenders: int, scratch: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start `contenders` processes of `tau2 <arguments>`, release them at once, and wait for all."""
    go = scratch / "go"
    go.unlink(missing_ok=True)
    readies = [scratch / f"ready-{index}" for index in range(contenders)]
    for ready in readies:
        ready.unlink(missing_ok=True)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", BARRIER, str(ready), str(go), *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for ready in readies
    ]
    deadline = time.monotonic() + 120
    while not all(ready.exists() for ready in readies):
        assert time.monotonic() < deadline, "the contenders never reached the barrier"
        assert all(process.poll() is None for process in processes), [p.communicate() for p in processes]
        time.sleep(0.005)
    go.touch()
    finished = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=300)
        finished.append(subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr))
    return finished


def check_round(out: Path, results: list[subprocess.CompletedProcess[str]], tasks: int) -> int:
    """Assert one winner, one-line refusals with exit 2 and an intact store; returns the refusals."""
    winners = [result for result in results if result.returncode == 0]
    losers = [result for result in results if result.returncode != 0]
    assert len(winners) == 1, [(result.returncode, result.stderr) for result in results]
    for loser in losers:
        assert loser.returncode == 2, loser.stderr
        assert loser.stdout == ""
        lines = loser.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), loser.stderr
        assert any(refusal in lines[0] for refusal in REFUSALS), lines[0]
    manifest = load_manifest(out)
    records, warnings = read_records(out / RESULTS_FILE)
    assert warnings == []
    units = Counter((record.task_id, record.trial) for record in records)
    assert len(records) == len(units) == tasks * TRIALS, "a record is missing or duplicated"
    assert {record.run_id for record in records} == {manifest.run_id}
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST_FILE, RESULTS_FILE]
    return len(losers)


def test_simultaneous_starts_on_one_directory_let_exactly_one_proceed(
    suite_file: Path, tmp_path: Path, reliability_scale: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tau2.domains.mock.tasks import MOCK_TASKS

    rounds = reliability_scale.pick(1, 10)
    tasks = len(MOCK_TASKS)
    monkeypatch.setenv(DELAY_VARIABLE, "0.01")  # the contenders' actors wait before each turn
    slow = ["--concurrency", "2"]
    base = ["run", "--suite", str(suite_file), *SLOWED, "--trials", str(TRIALS), *slow]
    partial = tmp_path / "partial"
    reference = subprocess.run(
        [sys.executable, "-m", "tau2", *base, "--out", str(partial)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert reference.returncode == 0, reference.stderr
    kept = (partial / RESULTS_FILE).read_bytes().splitlines(keepends=True)[:3]
    (partial / RESULTS_FILE).write_bytes(b"".join(kept))

    played = refused = 0
    for number in range(rounds):
        for kind, contenders in ROUND_KINDS[:: reliability_scale.pick(3, 1)]:
            out = tmp_path / f"{kind}-{contenders}-{number}"
            if kind == "resume":
                shutil.copytree(partial, out)
                arguments = ["run", "--resume", "--out", str(out), *SLOWED, *slow]  # the plugins named again
            else:
                arguments = [*base, "--out", str(out)]
            refused += check_round(out, race(arguments, contenders, tmp_path), tasks)
            played += 1
    print(
        f"RELIABILITY: simultaneous starts: {played} rounds (pairs and triples, fresh and resume), "
        f"{played} proceeded alone, {refused} refused with exit 2, 0 duplicated records, 0 bad manifests"
    )
