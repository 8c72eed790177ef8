"""`tau2 experiment run`: run an experiment file's arms, paired and interleaved, into one directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tau2.cli._config_options import execution_options, with_options

EXECUTION_OPTIONS = execution_options()
"""How the arms' simulations run (`--workers`, `--ray`, `--concurrency`, `--rate-limit`, `--cache`), for
every arm: derived from `RunConfig` like `tau2 run`'s."""


@with_options(EXECUTION_OPTIONS)
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
    **given: Any,
) -> None:
    """Run every arm of EXPERIMENT_FILE into OUT/<arm>, paired and interleaved, beside OUT/experiment.json.

    Each arm is an ordinary run directory. With a budget table, an initial round of every task in every
    arm comes first, then more trials go to the tasks whose paired outcome is most uncertain until the
    target or a limit is reached. The cost estimate is printed before the first simulation. The arms
    share one executor (--workers, --ray: as for `tau2 run`) and one model cache (--cache); these options
    apply to this session only and may change on --resume.
    """
    import asyncio

    from tau2.cli._config_options import options_layer
    from tau2.cli._output import say
    from tau2.cli._progress import CommandProgress
    from tau2.cli._signals import Stopped
    from tau2.config import layered
    from tau2.errors import UserInputError
    from tau2.experiments import (
        CostEstimate,
        ExperimentConfig,
        ExperimentProgress,
        experiment_summary,
        open_experiment,
    )
    from tau2.llm import AuthenticationError
    from tau2.runs import COMMAND_LINE

    class Progress(CommandProgress, ExperimentProgress):
        """The run's progress bar and warnings, and the cost estimate on a line of its own."""

        def estimate(self, estimate: CostEstimate) -> None:
            say(estimate.line())

    config = ExperimentConfig.from_file(experiment_file)
    source = str(experiment_file)
    session = [options_layer(EXECUTION_OPTIONS, given)]
    if print_config:
        for arm in config.arms:
            typer.echo(f"# arm {arm.name}")
            typer.echo(layered([*config.arm_layers(arm.name, source=source), *session]).to_toml())
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
        session=session,
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
