"""Verify the extended telecom catalog at scale and self-test its tasks with the offline actors.

Run from the repository root: `python benchmarks/extended_catalog_bench.py [--target fixed|spread]
[--order workflow|tau2] [--every K] [--no-play]`. It streams the whole pool of `tau2 generate --catalog
extended --persona-assignment rotate --max-transfer-share 1` (every composition once, verified V1–V6 and
linted, as `tau2 generate` writes it), re-checks each task with `tau2 verify`'s task verifier and plays it
(every task, or every K-th) with the oracle agent (interactive with the scripted user, and solo) and the
null agent (both modes), one task at a time, so memory stays flat. It prints the pool by intent and outcome
(solved by the agent and the customer, or a transfer), pass^1 of each seat, the CPU time of each step and
the peak memory. The figures in docs/generator.md come from this script.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from collections import Counter, defaultdict

from tau2.actors import make_actor
from tau2.episode import ActorSpec, EpisodeConfig, Mode, run_episode, verify_task
from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment, TargetMode
from tau2.generator.pipeline import generate_stream
from tau2.tasks import Task, get_domain
from tau2.world import Side

SEATS = (
    ("oracle", Mode.INTERACTIVE),
    ("oracle", Mode.SOLO),
    ("null", Mode.INTERACTIVE),
    ("null", Mode.SOLO),
)


async def play(task: Task, agent: str, mode: Mode) -> float:
    """The reward of one trial of `agent` in `mode` (the scripted user plays the customer)."""
    user = None if mode is Mode.SOLO else make_actor(ActorSpec(kind="scripted"), Side.USER, mode)
    seat = make_actor(ActorSpec(kind=agent), Side.AGENT, mode)
    result = await run_episode(task, seat, user, EpisodeConfig(mode=mode))
    return result.reward


async def run(options: GeneratorOptions, every: int, playing: bool) -> None:
    """Stream the pool once: count, verify and play each task as it comes."""
    seconds: Counter[str] = Counter()
    outcomes: defaultdict[str, Counter[str]] = defaultdict(Counter)
    rewards: defaultdict[tuple[str, Mode], list[float]] = defaultdict(list)
    odd: defaultdict[tuple[str, Mode], list[str]] = defaultdict(list)
    invalid: list[str] = []
    stream = generate_stream(get_domain("telecom"), options)
    tasks = iter(stream)
    index = 0
    while True:
        started = time.process_time()
        task = next(tasks, None)
        seconds["generate, verify and lint"] += time.process_time() - started
        if task is None:
            break
        outcomes[task.intent or ""]["transfer" if task.evaluation.expects_transfer else "solved"] += 1
        started = time.process_time()
        if not verify_task(task).valid:
            invalid.append(task.id)
        seconds["tau2 verify"] += time.process_time() - started
        if playing and index % every == 0:
            for agent, mode in SEATS:
                started = time.process_time()
                reward = await play(task, agent, mode)
                seconds[f"{agent} {mode.value}"] += time.process_time() - started
                rewards[(agent, mode)].append(reward)
                if reward != (1.0 if agent == "oracle" else 0.0):
                    odd[(agent, mode)].append(task.id)
        index += 1
    lint = Counter(finding.kind.value for finding in stream.findings)
    where = f"target {options.target}, order {options.order}"
    print(f"catalog {stream.catalog_version} in the {stream.domain} domain, {where}")
    print(f"{index} tasks verified, {len(stream.rejected)} rejected, lint {dict(lint) or 0}")
    print(f"{'intent':<20}{'tasks':>8}{'solved':>8}{'transfer':>10}")
    for intent, counts in [*outcomes.items(), ("all", sum(outcomes.values(), Counter()))]:
        print(f"{intent:<20}{counts.total():>8}{counts['solved']:>8}{counts['transfer']:>10}")
    print(f"tau2 verify: {index - len(invalid)}/{index} valid")
    for (agent, mode), played in rewards.items():
        detail = f"; unexpected: {odd[(agent, mode)][:3]}" if odd[(agent, mode)] else ""
        print(f"{agent} {mode.value}: pass^1 {sum(played) / len(played):.3f} on {len(played)} tasks{detail}")
    print("CPU seconds: " + ", ".join(f"{step} {value:.1f}" for step, value in seconds.items()))
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=TargetMode, default=TargetMode.FIXED)
    parser.add_argument("--order", type=Order, default=Order.WORKFLOW)
    parser.add_argument("--every", type=int, default=1, help="Play every K-th task (1: all).")
    parser.add_argument("--no-play", action="store_true", help="Only generate, verify and count.")
    arguments = parser.parse_args()
    options = GeneratorOptions(
        persona_assignment=PersonaAssignment.ROTATE,
        catalog="extended",
        max_transfer_share=1.0,  # the whole pool, transfers included
        target=arguments.target,
        order=arguments.order,
    )
    asyncio.run(run(options, max(1, arguments.every), not arguments.no_play))


if __name__ == "__main__":
    main()
