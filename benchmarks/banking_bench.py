"""Time the banking domain: building a world three ways, the per-task pipeline (world with the task's
data patches, reference replay, reward-basis evaluation), a task's whole evaluation (`evaluate`, with the
retrieval diagnostic), and the knowledge-base searches (the one-time BM25 index build, then one query;
grep; a shell command).

Run from the repository root: `python benchmarks/banking_bench.py [--data-dir DIR] [--repeat N]`.
Defaults to τ²-bench's banking data beside the repository (`../shared/conformance/tau2-banking`: 97
tasks, 698 documents), or to the domain's own data when that is absent.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tau2 import World, get_domain
from tau2.domains.banking_knowledge.loader import DATA_DIR, load_state
from tau2.episode import TerminationReason, Trajectory, evaluate, evaluate_basis
from tau2.retrieval import get_engine, read_documents
from tau2.tasks import Task, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import RetrievalConfig

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-banking"
FINISHED = Trajectory(termination=TerminationReason.USER_STOP)
QUERIES = [
    "lost debit card replacement",
    "how do I open a savings account for my business",
    "credit limit increase eligibility payment history",
    "dispute a duplicate charge on my credit card",
    "Business Gold Rewards Card annual fee waiver",
    "wire transfer fee international",
    "deceased account holder transfer",
    "cash back rewards not credited",
]


def milliseconds(run: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of each of `repeat` runs, after one untimed warm-up run."""
    run()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def pipeline(task: Task, data_dir: Path | None) -> None:
    """One oracle evaluation: the task's world, every reference action by its seat, the basis verdict."""
    world = initialize_world(task, data_dir)
    for step in task.evaluation.solution:
        world.call(step.side, step.name, step.arguments)
    evaluate_basis(task, world, FINISHED, data_dir=data_dir)


def evaluation(task: Task, data_dir: Path | None) -> float:
    """Milliseconds of `evaluate` on the world the task's reference actions leave (the verdict, the action
    diagnostics and the recall of the task's documents under BM25)."""
    world = initialize_world(task, data_dir)
    for step in task.evaluation.solution:
        world.call(step.side, step.name, step.arguments)
    started = time.perf_counter()
    evaluate(task, world, FINISHED, data_dir=data_dir, retrieval=RetrievalConfig(name="bm25"))
    return (time.perf_counter() - started) * 1000


def row(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"| {name} | {statistics.median(samples):.4f} ms | {p90:.4f} ms |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=SHARED if SHARED.is_dir() else None)
    parser.add_argument("--repeat", type=int, default=50)
    options = parser.parse_args()
    data_dir: Path | None = options.data_dir
    domain = get_domain("banking_knowledge")
    tasks = load_task_file((data_dir or DATA_DIR) / "tasks", "banking_knowledge")
    snapshot = World.create(domain, data_dir).snapshot()
    state_type = type(World.create(domain, data_dir).state)
    print(f"data: {data_dir or DATA_DIR} ({len(tasks)} tasks)\n")
    print("| Step | Median | p90 |\n|---|---|---|")
    print(
        row(
            "world: copy-on-write `World.create`",
            milliseconds(lambda: World.create(domain, data_dir), options.repeat),
        )
    )
    print(
        row(
            "world: re-validating a JSON snapshot",
            milliseconds(lambda: state_type.model_validate_json(snapshot), 20),
        )
    )
    print(row("world: parsing `db.json`", milliseconds(lambda: load_state(data_dir), 20)))
    per_task = []
    for _ in range(max(1, options.repeat // 10)):
        for task in tasks:
            pipeline(task, data_dir)  # the first pass also caches each task's reference end state
            started = time.perf_counter()
            pipeline(task, data_dir)
            per_task.append((time.perf_counter() - started) * 1000)
    print(row("task: world + patches + reference replay + basis evaluation", per_task))
    evaluations = [evaluation(task, data_dir) for _ in range(max(1, options.repeat // 10)) for task in tasks]
    print(row("task: `evaluate` (verdict and diagnostics) after the reference replay", evaluations))
    knowledge = read_documents((data_dir or DATA_DIR) / "documents")
    started = time.perf_counter()
    import rank_bm25  # noqa: F401 (the library's first import, timed on its own)

    print(f"| importing rank-bm25 and numpy (once) | {(time.perf_counter() - started) * 1000:.1f} ms | |")
    started = time.perf_counter()
    search = get_engine("bm25").build(knowledge, None)
    build = (time.perf_counter() - started) * 1000
    print(f"| BM25 index build ({len(knowledge.documents)} documents, once) | {build:.1f} ms | |")
    first = []
    for query in QUERIES:  # every query's terms met for the first time
        started = time.perf_counter()
        search.search(query, 10)
        first.append((time.perf_counter() - started) * 1000)
    print(row("BM25 query, terms not seen before", first))
    warm = [
        sample
        for query in QUERIES
        for sample in milliseconds(lambda q=query: search.search(q, 10), options.repeat)
    ]
    print(row("BM25 query, terms seen before", warm))
    grepper = get_engine("grep").build(knowledge, None)
    print(
        row(
            "grep (one regular expression over every document)",
            milliseconds(lambda: grepper.search("dispute|chargeback", 10), options.repeat),
        )
    )
    (shell,) = get_engine("shell").build(knowledge, None).tools(10)
    print(
        row(
            "shell `grep -ril 'wire transfer' . | head`",
            milliseconds(lambda: shell(None, command="grep -ril 'wire transfer' . | head"), options.repeat),
        )
    )


if __name__ == "__main__":
    main()
