"""Adaptive against uniform allocation of trials: simulations needed to narrow an arm's Δpass^1 interval to
the same half width, on synthetic task banks shaped like published τ²-bench results.

The banks. τ²-bench's leaderboard publishes pass^1..pass^4 per domain from 4 trials per task. With 4 trials,
those four numbers and the task count fix how many tasks passed 0, 1, 2, 3 and 4 times (pass^k is
Σ_c f_c·C(c, k)/C(4, k), a triangular system in the shares f_c). A bank draws each task's class from those
shares, coupled across the two arms through one uniform draw per task (a task hard for one model is hard
for the other): a task in class 0 never succeeds, one in class 4 always does, and one in class c = 1..3 has a
success rate spread evenly over ((c − ½)/4, (c + ½)/4). Two experiments per domain: Claude Sonnet 4.5
against GPT-5.2 (both with the published shares), and a replicate (the same model in both arms, no
difference: all of the interval's width then comes from trial noise).

The allocations. Both start with `--initial` trials of every task in both arms and add rounds of a tenth of
the tasks, each getting one more trial in both arms, until the paired bootstrap interval's half width is at
most the target (checked after every round): uniform gives the round to the tasks with the fewest trials;
adaptive asks `tau2.metrics.allocate`. Both read the same pre-drawn outcome of every (task, arm, trial), so
they differ only in which trials they ask for. The target is the half width uniform allocation reaches on
average at `--target-trials` trials per task (from the bank's true rates).

Run: `python benchmarks/adaptive_trials.py [--seeds 10] [--target-trials 12]`.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from math import comb, sqrt
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from tau2.experiments import Budget, allocate
from tau2.metrics import Bootstrap, TaskCounts, paired_pass_hat_k

Rates = npt.NDArray[np.float64]

PUBLISHED: dict[str, dict[str, tuple[int, tuple[float, float, float, float]]]] = {
    # domain: model: (tasks, pass^1..pass^4 in %), τ²-bench leaderboard, version 1.0.1, 4 trials per task,
    # user simulator GPT-5.2 (Sierra's own submissions of February and March 2026).
    "airline": {
        "claude-sonnet-4.5": (50, (72.0, 62.0, 54.5, 48.0)),
        "gpt-5.2": (50, (83.0, 78.33, 75.0, 72.0)),
    },
    "retail": {
        "claude-sonnet-4.5": (114, (72.37, 57.46, 47.37, 39.47)),
        "gpt-5.2": (114, (81.58, 69.59, 59.87, 51.75)),
    },
    "telecom": {
        "claude-sonnet-4.5": (114, (84.87, 75.44, 68.86, 64.04)),
        "gpt-5.2": (114, (89.69, 82.46, 76.75, 71.93)),
    },
    "banking_knowledge": {
        "claude-sonnet-4.5": (97, (25.26, 15.81, 12.63, 10.31)),
        "gpt-5.2": (97, (32.22, 23.88, 20.62, 18.56)),
    },
}
BASELINE, ARM = "claude-sonnet-4.5", "gpt-5.2"
MAX_TRIALS = 400
"""Trials drawn per (task, arm); the budget allows a quarter of that on average, so no task runs out."""


def class_shares(pass_hat_k: tuple[float, ...]) -> Rates:
    """Shares of tasks that passed 0..n of n trials, from published pass^1..pass^n (percent)."""
    n = len(pass_hat_k)
    system = [[comb(c, k) / comb(n, k) for c in range(n + 1)] for k in range(1, n + 1)] + [[1.0] * (n + 1)]
    shares: Rates = np.linalg.solve(np.array(system), np.array([*(p / 100 for p in pass_hat_k), 1.0]))
    shares = np.clip(shares, 0.0, None)
    return shares / shares.sum()


def rates(shares: Rates, uniform: Rates) -> Rates:
    """Task success rates at the quantiles `uniform`: class 0 never, class n always, class c in between
    spread evenly over ((c − ½)/n, (c + ½)/n)."""
    n = len(shares) - 1
    upper = np.cumsum(shares)
    classes = np.minimum(np.searchsorted(upper, uniform, side="right"), n)
    within = (uniform - (upper - shares)[classes]) / np.maximum(shares[classes], 1e-12)
    middle = (classes - 0.5 + np.clip(within, 0.0, 1.0)) / n
    return np.where(classes == 0, 0.0, np.where(classes == n, 1.0, middle))


@dataclass(frozen=True)
class Bank:
    """True success rates per task in the baseline and in the arm, and every trial's pre-drawn outcome."""

    baseline: Rates
    arm: Rates
    outcomes: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]

    @property
    def delta(self) -> float:
        return float((self.arm - self.baseline).mean())

    def half_width_at(self, trials: int, level: float) -> float:
        """Expected half width of the paired interval with `trials` trials of every task."""
        differences = self.arm - self.baseline
        noise = (self.arm * (1 - self.arm) + self.baseline * (1 - self.baseline)).mean() / trials
        z = NormalDist().inv_cdf(0.5 + level / 2)
        return z * sqrt((differences.var(ddof=1) + noise) / len(differences))


def make_bank(domain: str, replicate: bool, seed: int) -> Bank:
    rng = np.random.default_rng(seed)
    tasks, baseline_published = PUBLISHED[domain][BASELINE]
    quantiles = rng.random(tasks)
    baseline = rates(class_shares(baseline_published), quantiles)
    arm = baseline if replicate else rates(class_shares(PUBLISHED[domain][ARM][1]), quantiles)
    draws = rng.random((2, tasks, MAX_TRIALS))
    return Bank(baseline, arm, (draws[0] < baseline[:, None], draws[1] < arm[:, None]))


class Experiment:
    """The trials run so far of both arms, read from the bank's pre-drawn outcomes."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.trials = np.zeros(len(bank.baseline), dtype=np.int64)

    def run(self, tasks: list[int]) -> None:
        self.trials[tasks] += 1
        if self.trials.max() > MAX_TRIALS:
            raise SystemExit(f"a task needs more than the {MAX_TRIALS} trials drawn; lower the budget")

    def counts(self) -> tuple[TaskCounts, TaskCounts]:
        taken = np.arange(MAX_TRIALS)[None, :] < self.trials[:, None]
        return (
            TaskCounts.from_counts(self.trials, (self.bank.outcomes[0] & taken).sum(axis=1)),
            TaskCounts.from_counts(self.trials, (self.bank.outcomes[1] & taken).sum(axis=1)),
        )

    def simulations(self) -> int:
        return 2 * int(self.trials.sum())

    def delta(self) -> float:
        baseline, arm = self.counts()
        return float((arm.successes / arm.trials - baseline.successes / baseline.trials).mean())


def half_width(experiment: Experiment, bootstrap: Bootstrap) -> float:
    estimate = paired_pass_hat_k(*experiment.counts(), 1, bootstrap)["1"]
    assert estimate.ci_low is not None and estimate.ci_high is not None
    return (estimate.ci_high - estimate.ci_low) / 2


def uniform(bank: Bank, target: float, budget: Budget, round_size: int, bootstrap: Bootstrap) -> Experiment:
    """Rounds to the tasks with the fewest trials (lowest index first) until the half width reaches target."""
    experiment = Experiment(bank)
    while experiment.simulations() < budget.max_simulations:
        if experiment.trials.min() >= budget.initial_trials and half_width(experiment, bootstrap) <= target:
            break
        order = np.lexsort((np.arange(len(experiment.trials)), experiment.trials))
        experiment.run([int(task) for task in order[:round_size]])
    return experiment


def adaptive(bank: Bank, budget: Budget, round_size: int, bootstrap: Bootstrap, seed: int) -> Experiment:
    """Rounds chosen by `allocate` until it stops."""
    experiment = Experiment(bank)
    while True:
        allocation = allocate(
            experiment.counts(), budget, round_size=round_size, seed=seed, bootstrap=bootstrap
        )
        if allocation.stop is not None:
            return experiment
        experiment.run(allocation.tasks)


@dataclass(frozen=True)
class Outcome:
    """One experiment over several banks: per bank, its true Δpass^1, the target, and per allocation the
    simulations it took and the error of its Δpass^1 estimate."""

    deltas: list[float]
    targets: list[float]
    simulations: dict[str, list[int]]
    errors: dict[str, list[float]]

    def saved(self) -> float:
        return 1 - sum(self.simulations["adaptive"]) / sum(self.simulations["uniform"])


def experiment(domain: str, replicate: bool, options: argparse.Namespace, bootstrap: Bootstrap) -> Outcome:
    """Both allocations on `options.seeds` banks of one domain."""
    outcome = Outcome([], [], {"uniform": [], "adaptive": []}, {"uniform": [], "adaptive": []})
    for seed in range(options.seeds):
        bank = make_bank(domain, replicate, seed)
        target = bank.half_width_at(options.target_trials, bootstrap.level)
        tasks = len(bank.baseline)
        budget = Budget(
            max_simulations=2 * tasks * (MAX_TRIALS // 4),
            target_half_width=target,
            initial_trials=options.initial,
        )
        round_size = max(1, tasks // 10)
        runs = {
            "uniform": uniform(bank, target, budget, round_size, bootstrap),
            "adaptive": adaptive(bank, budget, round_size, bootstrap, seed),
        }
        for name, run in runs.items():
            outcome.simulations[name].append(run.simulations())
            outcome.errors[name].append(run.delta() - bank.delta)
        outcome.deltas.append(bank.delta)
        outcome.targets.append(target)
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=10, help="banks drawn per experiment")
    parser.add_argument(
        "--target-trials", type=int, default=12, help="uniform trials whose width is the target"
    )
    parser.add_argument("--initial", type=int, default=2, help="trials of every task before allocating")
    parser.add_argument("--bootstrap-samples", type=int, default=1000)
    options = parser.parse_args()
    bootstrap = Bootstrap(samples=options.bootstrap_samples)
    started = time.perf_counter()
    totals = {"uniform": 0, "adaptive": 0}
    print(f"target: the half width uniform allocation reaches at {options.target_trials} trials per task")
    print(f"{'experiment':<44} {'Δ':>6} {'target':>6} {'uniform':>8} {'adaptive':>8} {'saved':>6}  per seed")
    for domain in PUBLISHED:
        for replicate in (False, True):
            outcome = experiment(domain, replicate, options, bootstrap)
            for name in totals:
                totals[name] += sum(outcome.simulations[name])
            per_seed = 1 - np.array(outcome.simulations["adaptive"]) / np.array(
                outcome.simulations["uniform"]
            )
            label = f"{domain}: " + (f"{BASELINE} twice" if replicate else f"{BASELINE} vs {ARM}")
            mean = {name: np.mean(values) for name, values in outcome.simulations.items()}
            print(
                f"{label:<44} {np.mean(outcome.deltas):>+6.3f} {np.mean(outcome.targets):>6.3f} "
                f"{mean['uniform']:>8.0f} {mean['adaptive']:>8.0f} {outcome.saved():>6.2f}  "
                f"{per_seed.min():+.2f} to {per_seed.max():+.2f}"
            )
            spread = np.std(outcome.errors["adaptive"]) / sqrt(options.seeds)
            print(
                f"{'':<44} mean error of Δpass^1: uniform {np.mean(outcome.errors['uniform']):+.4f}, "
                f"adaptive {np.mean(outcome.errors['adaptive']):+.4f} (± {spread:.4f})"
            )
    saved = 1 - totals["adaptive"] / totals["uniform"]
    print(f"simulations: uniform {totals['uniform']:,}, adaptive {totals['adaptive']:,}")
    print(f"fraction of simulations saved: {saved:.2f}  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
