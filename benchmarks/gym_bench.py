"""Gymnasium environment overhead: resets and steps per second of `tau2/<domain>-<seat>-v0` with the offline
other seat, i.e. what driving the episode core and running the other seat's turns on the private loop cost.

Run: `python benchmarks/gym_bench.py [--domain telecom] [--seat agent] [--episodes N]` (extra `gym`).
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium

from tau2.rl.gymnasium_env import env_id
from tau2.world._tools import Side


def measure(domain: str, seat: Side, episodes: int) -> str:
    """Play `episodes` episodes with random text actions; summarise reset and step times."""
    env = gymnasium.make(env_id(domain, seat))
    env.action_space.seed(0)
    resets: list[float] = []
    steps: list[float] = []
    for episode in range(episodes):
        started = time.perf_counter()
        env.reset(seed=episode)
        resets.append(time.perf_counter() - started)
        done = False
        while not done:
            action = env.action_space.sample()
            started = time.perf_counter()
            _, _, terminated, truncated, _ = env.step(action)
            steps.append(time.perf_counter() - started)
            done = terminated or truncated
    env.close()
    return (
        f"{env_id(domain, seat)}: {episodes} episodes, {len(steps)} steps; "
        f"reset median {1000 * statistics.median(resets):.2f} ms; "
        f"step median {1e6 * statistics.median(steps):.0f} µs, p95 {1e6 * _p95(steps):.0f} µs; "
        f"{len(steps) / sum(steps):.0f} steps/s"
    )


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="telecom")
    parser.add_argument("--seat", default="agent", choices=[seat.value for seat in Side])
    parser.add_argument("--episodes", type=int, default=50)
    arguments = parser.parse_args()
    print(measure(arguments.domain, Side(arguments.seat), arguments.episodes))


if __name__ == "__main__":
    main()
