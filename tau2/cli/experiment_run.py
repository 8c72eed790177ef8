"""`tau2 experiment run`: run an experiment file's arms, paired and interleaved, into one directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def command(
    experiment_file: Annotated[
        Path,
        typer.Argument(metavar="EXPERIMENT_FILE", help="The experiment's TOML file.", show_default=False),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Experiment directory (new, or existing with --resume).")
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue the experiment in --out: run only what its arms lack."),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(
            "--max-cost",
            metavar="USD",
            min=0,
            help="Stop starting simulations before the priced models' spend would pass this (replaces the "
            "budget's max_cost_usd).",
        ),
    ] = None,
    print_config: Annotated[
        bool, typer.Option("--print-config", help="Print every arm's run settings as TOML, and stop.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run every arm of EXPERIMENT_FILE into OUT/<arm>, paired and interleaved, beside OUT/experiment.json.

    Each arm is an ordinary run directory. With a budget table, an initial round of every task in every
    arm comes first, then more trials go to the tasks whose paired outcome is most uncertain until the
    target or a limit is reached. The cost estimate is printed before the first simulation.
    """
    import asyncio

    from tau2.cli._output import say
    from tau2.cli._progress import CommandProgress
    from tau2.cli._signals import Stopped
    from tau2.config import ExperimentConfig
    from tau2.errors import UserInputError
    from tau2.experiments import CostEstimate, ExperimentProgress, experiment_summary, open_experiment
    from tau2.llm import AuthenticationError
    from tau2.runs import COMMAND_LINE

    class Progress(CommandProgress, ExperimentProgress):
        """The run's progress bar and warnings, and the cost estimate on a line of its own."""

        def estimate(self, estimate: CostEstimate) -> None:
            say(estimate.line())

    config = ExperimentConfig.from_file(experiment_file)
    source = str(experiment_file)
    if print_config:
        for name, arm in config.arm_configs(source=source).items():
            typer.echo(f"# arm {name}")
            typer.echo(arm.to_toml())
        return
    if out is None:
        raise UserInputError("missing option --out: the experiment directory")
    again = f"`tau2 experiment run {experiment_file} --resume --out {out}` continues"
    with open_experiment(
        config,
        out,
        resume=resume,
        max_cost_usd=max_cost,
        progress=Progress(enabled=not quiet),
        source=source,
        words=COMMAND_LINE,
    ) as started:
        try:
            result = asyncio.run(started.execute())
        except AuthenticationError as error:
            raise UserInputError(
                f"{error} (the experiment stopped; finished simulations are saved: fix the credentials, "
                f"then {again})"
            ) from None
        except KeyboardInterrupt as interruption:
            raise Stopped(interruption, f"finished simulations are saved; {again}") from None
    say(experiment_summary(result))
