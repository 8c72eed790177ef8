"""`tau2 run`: simulate a suite's tasks × trials concurrently into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tau2.cli._config_options import run_options, with_options
from tau2.cli.options import ConfigFile, PrintConfig, configured_layers

RUN_OPTIONS = run_options()
"""One option per run setting, derived from `RunConfig`."""


@with_options(RUN_OPTIONS)
def command(
    out: Annotated[
        Path | None, typer.Option("--out", help="Run directory (new, or existing with --resume).")
    ] = None,
    config: ConfigFile = None,
    print_config: PrintConfig = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run in --out: run only its missing simulations.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    **given: Any,
) -> None:
    """Run every task × trial, append one record per simulation to OUT/results.jsonl, print a summary.

    Settings come from the defaults, then --config, then the options given; on --resume the run's own
    settings stand in for the defaults, and any setting given must match them (trials may grow;
    concurrency, rate limits and workers may change).
    """
    import asyncio

    from tau2.api import open_run
    from tau2.cli._output import say
    from tau2.cli._progress import CommandProgress
    from tau2.cli._signals import Stopped
    from tau2.config import layered
    from tau2.errors import UserInputError
    from tau2.llm import AuthenticationError
    from tau2.runner import nothing_judged, run_summary, stored_manifest
    from tau2.runs import COMMAND_LINE

    layers = configured_layers(config, RUN_OPTIONS, given)
    if print_config:
        stored = stored_manifest(out, COMMAND_LINE).config if resume and out is not None else None
        typer.echo(layered(layers, stored).to_toml(), nl=False)
        return
    if out is None:
        raise UserInputError("missing option --out: the run directory")
    progress = CommandProgress(enabled=not quiet)
    with open_run(layers, out, resume=resume, progress=progress, words=COMMAND_LINE) as started:
        try:
            result = asyncio.run(started.execute())
        except AuthenticationError as error:
            raise UserInputError(
                f"{error} (the run stopped; finished simulations are saved: fix the credentials, then "
                f"`tau2 run --resume --out {out}` continues)"
            ) from None
        except KeyboardInterrupt as interruption:
            note = f"finished simulations are saved; `tau2 run --resume --out {out}` continues"
            raise Stopped(interruption, note) from None
    say(run_summary(result.manifest, result.totals, out))
    failure = nothing_judged(result.totals)
    if failure is not None:
        say(f"error: {failure}", err=True)
        raise typer.Exit(1)
