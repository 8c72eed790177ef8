"""`tau2 view`: read simulations of a run in the terminal, each seat's turns in its own column."""

from __future__ import annotations

from typing import Annotated

import typer

from tau2.cli.options import RunDir


def command(
    run_dir: RunDir,
    task: Annotated[str | None, typer.Option("--task", metavar="ID", help="Only this task.")] = None,
    trial: Annotated[int | None, typer.Option("--trial", metavar="N", help="Only this trial.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only simulations that did not succeed.")] = False,
) -> None:
    """Show the matching simulations: trajectory by seat, termination, failed assertions, actions."""
    from rich.console import Console
    from rich.rule import Rule

    from tau2.report import select_simulations, simulation_view
    from tau2.runs import load_run

    run = load_run(run_dir)
    for warning in run.warnings:
        typer.echo(f"warning: {warning}", err=True)
    console = Console()
    for record in select_simulations(run, task, trial, failed):
        console.print(Rule())
        for renderable in simulation_view(record):
            console.print(renderable)
