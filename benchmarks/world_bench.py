"""Time the per-task world pipeline: build a world, initialise it, replay the reference actions, assert.

Run from the repository root: `python benchmarks/world_bench.py [--tasks FILE] [--data-dir DIR] [--repeat N]`.
Defaults to the τ²-bench conformance tasks (tasks_small.json) and their data directory.

`--tau-domains` times τ²-bench's airline and retail tasks instead (world build, reference replay and the
reward-basis evaluation, which compares the final database with the reference end state), and the cost of
building a world on their large databases three ways.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tau2 import World, get_domain
from tau2.episode import TerminationReason, Trajectory, evaluate_basis, verify_task
from tau2.tasks import Task, initialize_world, run_assertions
from tau2.tau2bench import load_task_file

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
CONFORMANCE = SHARED / "tau2-telecom"
FINISHED = Trajectory(termination=TerminationReason.USER_STOP)
REFERENCE_MS_PER_TASK = 12.0
"""The reference implementation's time per task for the same pipeline (DESIGN.md §9)."""


def replay(task: Task, data_dir: Path | None) -> None:
    """One oracle evaluation: fresh initialised world, every reference action by its seat, all assertions."""
    world = initialize_world(task, data_dir)
    for step in task.evaluation.solution:
        world.call(step.side, step.name, step.arguments)
    run_assertions(world, task.evaluation.assertions)


def replay_and_judge(task: Task, data_dir: Path | None) -> None:
    """One oracle evaluation of a reward-basis task: fresh world, reference actions, basis evaluation
    (database match against the cached reference end state, information, action checks)."""
    world = initialize_world(task, data_dir)
    for step in task.evaluation.solution:
        world.call(step.side, step.name, step.arguments)
    evaluate_basis(task, world, FINISHED, data_dir=data_dir)


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


def build_costs(domain_name: str, data_dir: Path, repeat: int) -> None:
    """Milliseconds to build one world: our copy-on-write copy, re-validating a JSON snapshot of the state
    (what a design without shared records does), and parsing the data file (τ²-bench's way)."""
    domain = get_domain(domain_name)
    World.create(domain, data_dir)
    base = domain.load_state(data_dir)
    snapshot = base.__pydantic_serializer__.to_json(base)
    ways: list[tuple[str, Callable[[], object]]] = [
        ("copy-on-write World.create", lambda: World.create(domain, data_dir)),
        ("validate the JSON snapshot", lambda: type(base).model_validate_json(snapshot)),
        ("parse db.json", lambda: domain.load_state(data_dir)),
    ]
    for label, build in ways:
        samples = []
        for _ in range(repeat if label.startswith("copy") else max(3, repeat // 10)):
            start = time.perf_counter_ns()
            build()
            samples.append((time.perf_counter_ns() - start) / 1e6)
        print(f"  {domain_name} world build, {label}: median {statistics.median(samples):.3f} ms")


def tau_domains(repeat: int) -> None:
    """Per-task pipeline and world-build figures for the airline and retail conformance data."""
    for domain in ("airline", "retail"):
        data_dir = SHARED / f"tau2-{domain}"
        tasks = load_task_file(data_dir / "tasks.json")
        print(f"{domain}: {len(tasks)} tasks from {data_dir / 'tasks.json'}, {repeat} repeats")
        samples = measure(replay_and_judge, tasks, data_dir, repeat)
        median = statistics.median(samples)
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(f"  init + replay + basis evaluation: median {median:.3f} ms/task, p90 {p90:.3f} ms/task")
        build_costs(domain, data_dir, repeat * 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=CONFORMANCE / "tasks_small.json")
    parser.add_argument("--data-dir", type=Path, default=CONFORMANCE)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--tau-domains", action="store_true", help="Time the airline and retail tasks.")
    options = parser.parse_args()
    if options.tau_domains:
        tau_domains(options.repeat)
        return
    tasks = load_task_file(options.tasks)
    print(f"{len(tasks)} tasks from {options.tasks}, {options.repeat} repeats")
    print(summary("init + replay + assertions", measure(replay, tasks, options.data_dir, options.repeat)))
    print(summary("verify_task", measure(verify, tasks, options.data_dir, options.repeat)))


if __name__ == "__main__":
    main()
