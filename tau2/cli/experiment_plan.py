"""`tau2 experiment plan`: how many trials per task an experiment needs to find a chosen Δpass^1."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def command(
    experiment_file: Annotated[
        Path,
        typer.Argument(metavar="EXPERIMENT_FILE", help="The experiment's TOML file.", show_default=False),
    ],
    pilot: Annotated[
        Path | None,
        typer.Option(
            "--pilot",
            metavar="DIR",
            help="A pilot run (or experiment: its baseline arm) whose per-task pass rates stand for the "
            "baseline's.",
        ),
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            "--rate",
            metavar="P",
            min=0.0,
            max=1.0,
            help="Without a pilot: the baseline's pass^1, taken for every task (conservative: tasks that "
            "always or never pass need fewer trials).",
        ),
    ] = None,
    delta: Annotated[
        float,
        typer.Option("--delta", min=0.001, max=1.0, help="The difference of pass^1 to find, either way."),
    ] = 0.05,
    power: Annotated[
        float, typer.Option("--power", min=0.01, max=0.999, help="The chance of finding it.")
    ] = 0.8,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha", min=0.0001, max=0.5, help="The significance level over all arms (Holm-corrected)."
        ),
    ] = 0.05,
    max_trials: Annotated[
        int, typer.Option("--max-trials", min=1, max=100_000, help="The most trials per task considered.")
    ] = 1000,
) -> None:
    """Print the trials per task EXPERIMENT_FILE needs so that `tau2 experiment report` finds a difference
    of --delta pass^1 between an arm and the baseline with --power, by the exact McNemar test at --alpha
    Holm-corrected over the arms; the baseline's per-task pass rates come from --pilot DIR or --rate P.
    The method is in docs/experiments.md ("Planning trials")."""
    from tau2.cli._output import say
    from tau2.errors import UserInputError
    from tau2.experiments import ExperimentConfig, pilot_rates, plan_trials

    if (pilot is None) == (rate is None):
        raise UserInputError("give the baseline's pass rates: --pilot DIR or --rate P (one of them)")
    config = ExperimentConfig.from_file(experiment_file)
    if pilot is not None:
        rates = pilot_rates(pilot)
        source = f"the pilot {pilot} ({len(rates):,} tasks with valid trials)"
    else:
        assert rate is not None
        rates, source = [rate], f"a stated pass^1 of {rate:g} for every task"
    plan = plan_trials(config, rates, source, delta=delta, power=power, alpha=alpha, max_trials=max_trials)
    tests = f"α {plan.alpha:g} over {plan.comparisons} arm{'' if plan.comparisons == 1 else 's'}"
    say(
        f"Experiment {plan.experiment}: {plan.tasks:,} tasks, {plan.arms} arms; baseline pass^1 "
        f"{plan.mean_rate:.2f} from {plan.rates_from}; {tests} (each test at {plan.alpha_per_test:.3g})"
    )
    for direction in plan.directions:
        found = (
            f"more than {max_trials:,} trials per task"
            if direction.trials is None
            else f"{_trials(direction.trials)} per task (power {direction.power:.2f})"
        )
        say(f"  a {direction.change} of {plan.delta:g} pass^1: {found}")
    if plan.trials is None:
        say(
            f"to find Δpass^1 of ±{plan.delta:g} with power {plan.power:g}: not within {max_trials:,} trials "
            "per task (a larger --delta, or more tasks)"
        )
    else:
        say(
            f"to find Δpass^1 of ±{plan.delta:g} with power {plan.power:g}: {_trials(plan.trials)} per task "
            f"({plan.simulations:,} simulations over the {plan.arms} arms); set [base] trials = {plan.trials}"
        )


def _trials(count: int) -> str:
    return f"{count:,} trial{'' if count == 1 else 's'}"
