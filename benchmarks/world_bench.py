"""Time the per-task world pipeline: build a world, initialise it, replay the reference actions, assert.

Run from the repository root: `python benchmarks/world_bench.py [--tasks FILE] [--data-dir DIR] [--repeat N]`.
Defaults to the τ²-bench conformance tasks (tasks_small.json) and their data directory.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tau2.tasks._assertions import run_assertions
from tau2.tasks._initialize import initialize_world
from tau2.tasks._task import Task
from tau2.tasks._tau2bench import load_task_file
from tau2.tasks._verify import verify_task

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
REFERENCE_MS_PER_TASK = 12.0
"""The reference implementation's time per task for the same pipeline (DESIGN.md §9)."""


def replay(task: Task, data_dir: Path | None) -> None:
    """One oracle evaluation: fresh initialised world, every reference action by its seat, all assertions."""
    world = initialize_world(task, data_dir)
    for step in task.evaluation.solution:
        world.call(step.side, step.name, step.arguments)
    run_assertions(world, task.evaluation.assertions)


def verify(task: Task, data_dir: Path | None) -> None:
    """Full verification of a task (assertions checked after initialisation and after every action)."""
    verify_task(task, data_dir)


def measure(
    run: Callable[[Task, Path | None], None], tasks: list[Task], data_dir: Path | None, repeat: int
) -> list[float]:
    """Milliseconds per task for every (repeat, task), after one warm-up pass."""
    for task in tasks:
        run(task, data_dir)
    samples = []
    for _ in range(repeat):
        for task in tasks:
            start = time.perf_counter_ns()
            run(task, data_dir)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def summary(label: str, samples: list[float]) -> str:
    """One line: median and p90 in ms/task, and the speed-up over the reference implementation."""
    median = statistics.median(samples)
    p90 = statistics.quantiles(samples, n=10)[-1]
    speedup = REFERENCE_MS_PER_TASK / median
    return (
        f"{label}: median {median:.3f} ms/task, p90 {p90:.3f} ms/task "
        f"({speedup:.0f}x faster than the reference's ~{REFERENCE_MS_PER_TASK:.0f} ms/task)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=CONFORMANCE / "tasks_small.json")
    parser.add_argument("--data-dir", type=Path, default=CONFORMANCE)
    parser.add_argument("--repeat", type=int, default=50)
    options = parser.parse_args()
    tasks = load_task_file(options.tasks)
    print(f"{len(tasks)} tasks from {options.tasks}, {options.repeat} repeats")
    print(summary("init + replay + assertions", measure(replay, tasks, options.data_dir, options.repeat)))
    print(summary("verify_task", measure(verify, tasks, options.data_dir, options.repeat)))


if __name__ == "__main__":
    main()
