"""`tau2 view`: read simulations of a run one per screen in the terminal (each seat's turns in its own
column), or write them into the HTML transcript viewer."""

from __future__ import annotations

from typing import Annotated

import typer

from tau2.cli.options import HtmlFile, RunDir, guard_outputs
from tau2.errors import UserInputError


def command(
    run_dir: RunDir,
    task: Annotated[str | None, typer.Option("--task", metavar="ID", help="Only this task.")] = None,
    trial: Annotated[int | None, typer.Option("--trial", metavar="N", help="Only this trial.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only simulations that did not succeed.")] = False,
    index: Annotated[
        int, typer.Option("--index", metavar="N", min=1, help="Show the N-th matching simulation.")
    ] = 1,
    every: Annotated[bool, typer.Option("--all", help="Show every matching simulation in turn.")] = False,
    html: HtmlFile = None,
) -> None:
    """Show one matching simulation (--index N for another, --all for every one): header, trajectory by
    seat, failed assertions, world changes, actions. --html FILE writes the matches to the HTML viewer."""
    from rich.rule import Rule

    from tau2._display import filled_width, output_console
    from tau2.cli._output import is_stdout, say
    from tau2.report import select_simulations, simulation_view, viewer_page_parts, write_page
    from tau2.runs import load_run

    guard_outputs(html, [run_dir])
    run = load_run(run_dir)
    for warning in run.warnings:
        say(f"warning: {warning}", err=True)
    chosen = select_simulations(run, task, trial, failed)
    if html is not None:
        title = f"tau2 view: {run.manifest.run_id} ({len(chosen):,} simulations)"
        page = viewer_page_parts(title, chosen, open_first=True)
        if is_stdout(html):
            for part in page:
                typer.echo(part, nl=False)
            return
        write_page(html, page)
        say(f"wrote {html}", err=True)
        return
    if index > len(chosen):
        raise UserInputError(f"--index {index}: only {len(chosen)} simulations match")
    console = output_console()
    shown = chosen if every else [chosen[index - 1]]
    for record in shown:
        console.print(Rule(), width=filled_width(console))
        for renderable in simulation_view(record):
            console.print(renderable)
    if not every and len(chosen) > 1:
        console.print(
            f"[dim]simulation {index:,} of {len(chosen):,} matching; --index N for another, --all for all[/]",
            no_wrap=True,
            overflow="ellipsis",
        )
