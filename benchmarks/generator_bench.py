"""Time generating and verifying the whole τ²-compatible telecom pool (3405 tasks).

Run from the repository root: `python benchmarks/generator_bench.py [--data-dir DIR] [--repeat N] [--lint]`.
Defaults to the τ²-bench conformance data directory, with the τ²-compatible options (personas rotated,
tasks ordered by subtask name, the fixed target C1001/L1002).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment
from tau2.generator.pipeline import generate
from tau2.tasks import get_domain

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
REFERENCE_MS_PER_TASK = (7.0, 9.0)
"""The reference implementation's time per task to generate and verify the same pool (DESIGN.md §9)."""


def measure(data_dir: Path, order: Order, lint: bool, repeat: int) -> tuple[int, list[float], list[float]]:
    """Tasks per generation, and wall and CPU milliseconds per task of each repeat (after a warm-up)."""
    domain = get_domain("telecom")
    options = GeneratorOptions(persona_assignment=PersonaAssignment.ROTATE, order=order)
    generation = generate(domain, options, data_dir, lint=lint)
    if generation.rejected:
        raise SystemExit(f"{len(generation.rejected)} tasks were rejected: {generation.rejected[0]}")
    tasks = len(generation.tasks)
    wall, cpu = [], []
    for _ in range(repeat):
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        generate(domain, options, data_dir, lint=lint)
        wall.append((time.perf_counter() - wall_start) * 1e3 / tasks)
        cpu.append((time.process_time() - cpu_start) * 1e3 / tasks)
    return tasks, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=CONFORMANCE)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lint", action="store_true", help="Also run the lint (redundant-step replays).")
    options = parser.parse_args()
    low, high = REFERENCE_MS_PER_TASK
    for order in (Order.TAU2, Order.WORKFLOW):
        tasks, wall, cpu = measure(options.data_dir, order, options.lint, options.repeat)
        median = statistics.median(wall)
        label = f"order {order.value}{' + lint' if options.lint else ''}"
        print(
            f"{label}: {tasks} tasks, median {median:.3f} ms/task ({1e3 / median:.0f} tasks/s), "
            f"CPU {statistics.median(cpu):.3f} ms/task, best {min(wall):.3f} ms/task; "
            f"{low / median:.0f}-{high / median:.0f}x the reference's speed ({low:.0f}-{high:.0f} ms/task)"
        )


if __name__ == "__main__":
    main()
