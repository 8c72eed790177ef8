"""Peak memory of `tau2 run` against the number of simulations it finishes: the runner keeps no finished
record, so memory should grow with the simulations in flight, not with those finished.

Each run is the telecom domain's default suite (159 tasks) with the oracle agent and the scripted user,
offline, with as many trials as it takes to reach the sizes asked for, run by `tau2 run` in a process of
its own, watched by a small wrapper process that reads the peak resident memory of its descendants
(`getrusage(RUSAGE_CHILDREN).ru_maxrss`: the largest single process, so with `--workers` the larger of the
driver and its workers). Then a resume of the largest run that adds one trial: it reads the stored run
one record at a time. Prints each peak and, per executor, the extra memory per extra finished simulation
of each larger run over the smallest; the bar is 5 kB.

Run: `python benchmarks/runner_memory_bench.py [--trials 6,63] [--executors local,workers] [--workers 2]`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASKS = 159
"""Tasks of the telecom default suite."""
BAR_BYTES_PER_SIMULATION = 5_000

_WRAPPER = """
import resource, subprocess, sys
completed = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, completed.returncode)
"""
"""Runs a command and prints the peak resident memory (KiB) of the largest process below it."""
_TAU2 = "from tau2.cli import console; raise SystemExit(console())"
"""The `tau2` command, run by this Python."""


def peak_kib(arguments: list[str]) -> tuple[int, float]:
    """Peak resident memory (KiB) of `tau2 ARGUMENTS` and its wall seconds; a failed run stops the
    benchmark."""
    command = [sys.executable, "-c", _WRAPPER, sys.executable, "-c", _TAU2, *arguments]
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
    wall = time.perf_counter() - started
    peak, code = int(output[0]), int(output[1])
    if code != 0:
        raise SystemExit(f"tau2 {' '.join(arguments)} exited with {code}")
    return peak, wall


def run_arguments(out: Path, trials: int, executor: str, workers: int) -> list[str]:
    """`tau2 run` of the telecom suite with offline seats on `executor`."""
    arguments = ["run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted"]
    arguments += ["--trials", str(trials), "--out", str(out), "--quiet"]
    return arguments + (["--workers", str(workers)] if executor == "workers" else [])


def measure(executor: str, trial_counts: list[int], workers: int) -> None:
    """Print one line per run size, the slope between the smallest and the largest, and a resume."""
    peaks: list[tuple[int, int]] = []
    with tempfile.TemporaryDirectory() as directory:
        for trials in trial_counts:
            out = Path(directory) / f"run-{trials}"
            peak, wall = peak_kib(run_arguments(out, trials, executor, workers))
            simulations = TASKS * trials
            peaks.append((simulations, peak))
            print(f"{executor}: {simulations:>7,} simulations: peak {peak / 1024:.1f} MB ({wall:.0f} s wall)")
        largest = trial_counts[-1]
        resumed = run_arguments(Path(directory) / f"run-{largest}", largest + 1, executor, workers)
        peak, wall = peak_kib([*resumed, "--resume"])
        stored = TASKS * largest
        print(
            f"{executor}: resume of {stored:,} stored simulations adding {TASKS}: peak {peak / 1024:7.1f} MB "
            f"({wall:.0f} s wall)"
        )
    small, small_peak = peaks[0]
    for large, large_peak in peaks[1:]:
        slope = (large_peak - small_peak) * 1024 / (large - small)
        verdict = "within" if slope <= BAR_BYTES_PER_SIMULATION else "above"
        growth = (large_peak - small_peak) / 1024
        print(
            f"{executor}: {growth:+.1f} MB from {small:,} to {large:,} simulations: "
            f"{slope / 1000:.2f} kB per extra simulation ({verdict} the 5 kB bar)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", default="6,63", help="trials per run, comma-separated (159 tasks each)")
    parser.add_argument("--executors", default="local,workers", help="local and/or workers")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the workers executor")
    options = parser.parse_args()
    trial_counts = sorted(int(count) for count in options.trials.split(","))
    for executor in options.executors.split(","):
        measure(executor, trial_counts, options.workers)


if __name__ == "__main__":
    main()
