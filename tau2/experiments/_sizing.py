"""How many trials per task an experiment needs before it is run (`tau2 experiment plan`): the experiment's
tasks counted from its file, the baseline's per-task pass rates taken from a pilot run or stated, and the
fewest trials per task at which the exact McNemar test finds a chosen Δpass^1 with a chosen power
(`trials_needed`; the model is in `_power` and docs/experiments.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tau2.config import RunConfig
from tau2.errors import UserInputError
from tau2.experiments._config import ExperimentConfig
from tau2.experiments._manifest import EXPERIMENT_FILE, arm_run_dir, load_experiment
from tau2.experiments._power import mcnemar_power, trials_needed
from tau2.metrics import OutcomeTally
from tau2.runs import fold_run
from tau2.tasks import get_domain
from tau2.tau2bench import load_split, load_task_file


class Direction(BaseModel):
    """The trials per task needed to find a loss or a gain of Δ (None: not within the most allowed)."""

    model_config = ConfigDict(frozen=True)

    change: Literal["loss", "gain"]
    trials: int | None
    power: float | None
    """The power those trials reach."""


class TrialPlan(BaseModel):
    """What `tau2 experiment plan` prints."""

    model_config = ConfigDict(frozen=True)

    experiment: str
    tasks: int
    arms: int
    comparisons: int
    """Arms tested against the baseline (Holm's correction then tests the first at alpha / comparisons)."""
    delta: float
    power: float
    alpha: float
    alpha_per_test: float
    rates_from: str
    """Where the baseline's per-task rates come from: a pilot run, or a rate stated for every task."""
    mean_rate: float
    directions: list[Direction]
    trials: int | None
    """The trials per task that find a change of Δ either way (the larger of the two); None when some
    possible direction needs more than the most allowed."""

    @property
    def simulations(self) -> int | None:
        """Simulations over every arm at `trials` per task."""
        return None if self.trials is None else self.trials * self.tasks * self.arms


def plan_trials(
    config: ExperimentConfig,
    rates: list[float],
    rates_from: str,
    *,
    delta: float,
    power: float,
    alpha: float,
    max_trials: int,
) -> TrialPlan:
    """The plan for `config` with the baseline's per-task `rates`: for a loss and for a gain of `delta`,
    the fewest trials per task reaching `power` at `alpha` split over the comparisons (Holm's first step);
    a direction the rates cannot move by (a loss above the mean rate) is left out."""
    tasks = experiment_tasks(config.arm_config(config.baseline))
    comparisons = len(config.arms) - 1
    per_test = alpha / comparisons
    directions = []
    mean = sum(rates) / len(rates)
    changes: tuple[tuple[Literal["loss", "gain"], float], ...] = (("loss", -delta), ("gain", delta))
    for change, signed in changes:
        if (signed < 0 and -signed > mean) or (signed > 0 and signed > 1.0 - mean):
            continue
        trials = trials_needed(rates, tasks, signed, power, per_test, max_trials)
        reached = None if trials is None else mcnemar_power(rates, tasks, trials, signed, per_test)
        directions.append(Direction(change=change, trials=trials, power=reached))
    if not directions:
        raise UserInputError(f"--delta {delta:g}: the baseline's pass^1 cannot change that much either way")
    needed = [d.trials for d in directions]
    return TrialPlan(
        experiment=config.name,
        tasks=tasks,
        arms=len(config.arms),
        comparisons=comparisons,
        delta=delta,
        power=power,
        alpha=alpha,
        alpha_per_test=per_test,
        rates_from=rates_from,
        mean_rate=mean,
        directions=directions,
        trials=None if None in needed else max(t for t in needed if t is not None),
    )


def experiment_tasks(config: RunConfig) -> int:
    """How many tasks a run of `config` covers: its task ids, its split, or every task of its suite."""
    if config.task_ids is not None:
        return len(config.task_ids)
    suite = config.suite
    if suite is None and config.domain is not None:
        suite = get_domain(config.domain).default_suite
    if suite is None:
        raise UserInputError("the experiment's [base] names no suite or domain with a default suite")
    if config.split is not None:
        return len(load_split(Path(suite), config.split))
    return len(load_task_file(Path(suite), config.domain))


def pilot_rates(path: Path) -> list[float]:
    """The per-task pass^1 of a pilot: a run directory, or an experiment directory (its baseline arm);
    tasks without a valid trial are left out, a pilot without any is one line."""
    run_dir = path
    if (path / EXPERIMENT_FILE).is_file():
        run_dir = arm_run_dir(path, load_experiment(path).config.baseline)
    _, tally = fold_run(run_dir, lambda _: OutcomeTally())
    rates = [o.successes / o.trials for o in tally.outcomes() if o.trials]
    if not rates:
        raise UserInputError(f"{path}: the pilot has no valid trial to take pass rates from")
    return rates
