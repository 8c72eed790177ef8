"""Verify the extended telecom catalog at scale and self-test its tasks with the offline actors.

Run from the repository root: `python benchmarks/extended_catalog_bench.py [--target fixed|spread]
[--order workflow|tau2] [--sample N] [--seed S]`. It generates the whole pool of `tau2 generate --catalog
extended --persona-assignment rotate` (every composition once, verified V1–V6 and linted), re-checks each
task with `tau2 verify`'s task verifier, then plays the tasks (all of them, or a seeded sample of N) with
the oracle agent (interactive with the scripted user, and solo) and the null agent (both modes), printing
pass^1 and the time of each step. The figures in docs/generator.md come from this script.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections import Counter
from collections.abc import Sequence

from tau2.actors import make_actor
from tau2.episode import ActorSpec, EpisodeConfig, Mode, run_episode, verify_task
from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment, TargetMode
from tau2.generator.pipeline import generate
from tau2.tasks import Task
from tau2.world import Side, get_domain

SEATS = (
    ("oracle", Mode.INTERACTIVE),
    ("oracle", Mode.SOLO),
    ("null", Mode.INTERACTIVE),
    ("null", Mode.SOLO),
)


async def pass_rate(tasks: Sequence[Task], agent: str, mode: Mode) -> tuple[float, list[str]]:
    """pass^1 of one trial per task, and the IDs of tasks whose reward is not the agent's bound."""
    config = EpisodeConfig(mode=mode)
    user_spec = ActorSpec(kind="scripted")
    rewards, odd = [], []
    for task in tasks:
        seat = make_actor(ActorSpec(kind=agent), Side.AGENT, mode)
        user = None if mode is Mode.SOLO else make_actor(user_spec, Side.USER, mode)
        result = await run_episode(task, seat, user, config)
        rewards.append(result.reward)
        if result.reward != (1.0 if agent == "oracle" else 0.0):
            odd.append(task.id)
    return sum(rewards) / len(rewards), odd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=TargetMode, default=TargetMode.FIXED)
    parser.add_argument("--order", type=Order, default=Order.WORKFLOW)
    parser.add_argument("--sample", type=int, default=0, help="Play a seeded sample of N tasks (0: all).")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    domain = get_domain("telecom")
    options = GeneratorOptions(
        persona_assignment=PersonaAssignment.ROTATE,
        catalog="extended",
        max_transfer_share=1.0,  # the whole pool, transfers included
        target=arguments.target,
        order=arguments.order,
        seed=arguments.seed,
    )
    started = time.perf_counter()
    generation = generate(domain, options)
    elapsed = time.perf_counter() - started
    tasks = generation.tasks
    intents = ", ".join(f"{intent} {count}" for intent, count in Counter(t.intent for t in tasks).items())
    transfers = sum(task.evaluation.expects_transfer for task in tasks)
    lint = Counter(finding.kind.value for finding in generation.findings)
    print(f"catalog {generation.catalog_version}, target {options.target}, order {options.order}")
    print(f"generated: {len(tasks)} verified ({intents}; {transfers} transfers),")
    print(f"  {len(generation.rejected)} rejected, lint {dict(lint) or 0}, {elapsed:.1f} s (with lint)")
    started = time.perf_counter()
    invalid = [check.task_id for check in map(verify_task, tasks) if not check.valid]
    seconds = time.perf_counter() - started
    print(f"tau2 verify: {len(tasks) - len(invalid)}/{len(tasks)} valid, {seconds:.1f} s")
    played = tasks if not arguments.sample else random.Random(arguments.seed).sample(tasks, arguments.sample)
    for agent, mode in SEATS:
        started = time.perf_counter()
        rate, odd = asyncio.run(pass_rate(played, agent, mode))
        seconds = time.perf_counter() - started
        detail = f"; unexpected: {odd[:3]}" if odd else ""
        print(f"{agent} {mode.value}: pass^1 {rate:.3f} on {len(played)} tasks, {seconds:.1f} s{detail}")


if __name__ == "__main__":
    main()
