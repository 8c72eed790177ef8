"""Time the `identifier_format` perturbation: renaming one simulation's start (`rename_identifiers`) on each
domain, once per (task, seed) with a new seed every call, as a run would.

Run from the repository root: `python benchmarks/identifier_format_bench.py [--tasks N] [--seeds N]`.
It uses τ²-bench's public data beside the repository (`../shared/conformance/`) where present and the
packs' own data otherwise, and prints, per domain: the identifiers the data holds, the first call (which
surveys the data directory once), and the median and p90 of a later call, split into drawing the renaming,
writing and validating the renamed state, and replaying the reference on both worlds; then the median of
a call with the seed of the call before, for another task (which reuses that call's draw and state).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tau2.rebrand import rename_identifiers
from tau2.rebrand._lockstep import replay_renamed
from tau2.rebrand._start import _surveyed
from tau2.tasks import Task, get_domain, initialize_world
from tau2.tau2bench import load_task_file

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
SOURCES = {
    "telecom": ("tau2-telecom", "tasks_small.json"),
    "airline": ("tau2-airline", "tasks.json"),
    "retail": ("tau2-retail", "tasks.json"),
    "banking_knowledge": ("tau2-banking", "tasks"),
    "telecom_extended": (None, None),
}


def tasks_and_data(domain: str) -> tuple[list[Task], Path | None, str]:
    """The tasks to rename and their data directory: τ²-bench's public ones if present, else the pack's."""
    folder, name = SOURCES[domain]
    if folder is not None and name is not None and (SHARED / folder).is_dir():
        return load_task_file(SHARED / folder / name, domain), SHARED / folder, f"τ²-bench {name}"
    suite = get_domain(domain).default_suite
    assert suite is not None
    return load_task_file(suite, domain), None, f"shipped {suite.name}"


def parts(task: Task, seed: int, data_dir: Path | None) -> tuple[float, float, float]:
    """Milliseconds of the three parts of one renaming: draw, renamed state, replay."""
    surveyed = _surveyed(get_domain(task.domain), data_dir)
    started = time.perf_counter()
    renaming = surveyed.survey.with_tasks([task]).renaming(seed)
    drawn = time.perf_counter()
    base = surveyed.state(renaming.identifiers)
    built = time.perf_counter()
    replay_renamed(
        renaming,
        task,
        lambda original: initialize_world(original, data_dir),
        lambda static: initialize_world(static, data_dir, base=base),
    )
    replayed = time.perf_counter()
    return (drawn - started) * 1e3, (built - drawn) * 1e3, (replayed - built) * 1e3


def p90(samples: list[float]) -> float:
    return sorted(samples)[int(0.9 * (len(samples) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10, help="tasks per domain (default 10)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per task (default 3)")
    parser.add_argument("--domains", nargs="*", default=list(SOURCES))
    options = parser.parse_args()
    print(
        "| Domain (data) | identifiers | first call | per simulation: median | p90 | draw | state | replay "
        "| same seed again |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for domain in options.domains:
        tasks, data_dir, label = tasks_and_data(domain)
        tasks = tasks[: options.tasks]
        started = time.perf_counter()
        rename_identifiers(tasks[0], 0, data_dir)
        first = (time.perf_counter() - started) * 1e3
        totals: list[float] = []
        split: list[tuple[float, float, float]] = []
        again: list[float] = []
        identifiers = len(_surveyed(get_domain(domain), data_dir).survey.found)
        for round in range(options.seeds):
            for index, task in enumerate(tasks):
                seed = 1 + round * len(tasks) + index
                started = time.perf_counter()
                rename_identifiers(task, seed, data_dir)
                totals.append((time.perf_counter() - started) * 1e3)
                started = time.perf_counter()
                rename_identifiers(tasks[index - 1], seed, data_dir)
                again.append((time.perf_counter() - started) * 1e3)
                split.append(parts(task, seed, data_dir))
        draw, state, replay = (statistics.median(column) for column in zip(*split, strict=True))
        print(
            f"| {domain} ({label}) | {identifiers} | {first:.0f} ms | {statistics.median(totals):.1f} ms "
            f"| {p90(totals):.1f} ms | {draw:.1f} ms | {state:.1f} ms | {replay:.1f} ms "
            f"| {statistics.median(again):.1f} ms |"
        )


if __name__ == "__main__":
    main()
