"""Episode throughput: oracle + scripted-user episodes per second and the framework's CPU time per turn.

The offline actors cost next to nothing, so the CPU time measured is the orchestrator's, the world's and
the evaluator's. Run: `python benchmarks/episode_bench.py [--suite FILE] [--data-dir DIR] [--repeat N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from tau2.actors._oracle import OracleAgent
from tau2.actors._scripted import ScriptedUser
from tau2.episode import EpisodeResult, run_episode
from tau2.episode._config import EpisodeConfig, Mode
from tau2.tasks._task import Task
from tau2.tau2bench._task_files import load_task_file

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"


async def _episode(task: Task, config: EpisodeConfig, data_dir: Path | None) -> EpisodeResult:
    """One oracle + scripted-user episode."""
    return await run_episode(task, OracleAgent(), ScriptedUser(), config, data_dir=data_dir)


async def _run(
    tasks: list[Task], config: EpisodeConfig, data_dir: Path | None, concurrent: bool
) -> list[EpisodeResult]:
    """Every episode awaited in turn, or all started at once."""
    if concurrent:
        return list(await asyncio.gather(*(_episode(task, config, data_dir) for task in tasks)))
    return [await _episode(task, config, data_dir) for task in tasks]


def measure(tasks: list[Task], mode: Mode, data_dir: Path | None, repeat: int, concurrent: bool) -> str:
    """Run every task `repeat` times in `mode` and summarise throughput and CPU per turn."""
    config = EpisodeConfig(mode=mode)
    wall, cpu = time.perf_counter(), time.process_time()
    results = asyncio.run(_run(tasks * repeat, config, data_dir, concurrent))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    episodes = len(results)
    turns = sum(result.trajectory.steps for result in results)
    failures = sum(result.reward != 1.0 for result in results)
    setup = sum(result.timing.setup_s for result in results) / episodes
    evaluation = sum(result.timing.evaluation_s for result in results) / episodes
    conversation = sum(result.timing.conversation_s for result in results) / turns
    how = f"{episodes} in flight" if concurrent else "one at a time"
    turn_loop = "–" if concurrent else f"{conversation * 1e6:.0f}"  # wall time is shared when concurrent
    return (
        f"| {mode.value} | {how} | {episodes / wall:.0f} | {turns / episodes:.1f} | {cpu / turns * 1e6:.0f} "
        f"| {cpu / episodes * 1e3:.2f} | {setup * 1e3:.2f} | {evaluation * 1e3:.2f} | {turn_loop} "
        f"| {failures} |"
    )


def main() -> None:
    """Parse the arguments, warm up, and print one table row per mode and scheduling."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", type=Path, default=CONFORMANCE / "tasks_small.json")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="default: the conformance data for the conformance tasks"
    )
    parser.add_argument("--repeat", type=int, default=20, help="episodes per task and mode")
    args = parser.parse_args()
    data_dir = args.data_dir
    if data_dir is None and args.suite.resolve().parent == CONFORMANCE.resolve():
        data_dir = CONFORMANCE
    tasks = load_task_file(args.suite)
    print(f"{len(tasks)} tasks from {args.suite}, {args.repeat} episodes per task and mode\n")
    print(
        "| mode | episodes | episodes/s | turns/episode | CPU µs/turn | CPU ms/episode | setup ms "
        "| evaluation ms | turn loop µs/turn | reward ≠ 1 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    measure(tasks[:1], Mode.INTERACTIVE, data_dir, 1, concurrent=False)  # warm caches and imports
    for mode in Mode:
        for concurrent in (False, True):
            print(measure(tasks, mode, data_dir, args.repeat, concurrent))


if __name__ == "__main__":
    main()
