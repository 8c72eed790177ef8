"""`tau2 compare`: run B against run A on their shared tasks, with paired bootstrap intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.metrics.paired import PairBy


def command(
    run_a: Annotated[Path, typer.Argument(help="Run directory A (the baseline).", show_default=False)],
    run_b: Annotated[
        Path, typer.Argument(help="Run directory B (differences are B − A).", show_default=False)
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the comparison as JSON (schema: docs/reports.md).")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Also write a self-contained HTML page with plots."),
    ] = None,
    pair_by: Annotated[
        PairBy | None,
        typer.Option(
            "--pair-by",
            help="Pair identical task IDs (task) or IDs without their [PERSONA:x] part (composition). "
            "Default: composition when the runs differ by their tasks' personas, else task.",
        ),
    ] = None,
    bootstrap_samples: Annotated[
        int, typer.Option("--bootstrap-samples", min=1, help="Bootstrap resamples for intervals.")
    ] = 1000,
    bootstrap_seed: Annotated[int, typer.Option("--bootstrap-seed", help="Seed of the bootstrap.")] = 0,
) -> None:
    """Compare two runs on the tasks both share; refuses runs that share none."""
    from rich.console import Console

    from tau2.metrics import Bootstrap
    from tau2.report import build_comparison, comparison_page, comparison_summary, write_page
    from tau2.rundir import load_run

    bootstrap = Bootstrap(samples=bootstrap_samples, seed=bootstrap_seed)
    report = build_comparison(load_run(run_a), load_run(run_b), pair_by, bootstrap)
    for warning in report.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if html is not None:
        write_page(html, comparison_page(report))
        typer.echo(f"wrote {html}", err=True)
    if json_output:
        typer.echo(report.model_dump_json(indent=2))
        return
    console = Console()
    for renderable in comparison_summary(report):
        console.print(renderable)
