"""`tau2 report`: pass^k with intervals, breakdowns, per-action diagnostics, costs and terminations."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def command(
    run_dir: Annotated[
        Path, typer.Argument(help="A run directory (written by `tau2 run`).", show_default=False)
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (schema: docs/reports.md).")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Also write a self-contained HTML page with plots."),
    ] = None,
    bootstrap_samples: Annotated[
        int, typer.Option("--bootstrap-samples", min=1, help="Bootstrap resamples for intervals.")
    ] = 1000,
    bootstrap_seed: Annotated[int, typer.Option("--bootstrap-seed", help="Seed of the bootstrap.")] = 0,
) -> None:
    """Report one run: terminal tables, or JSON with --json; --html FILE also writes an HTML page."""
    from rich.console import Console

    from tau2.metrics import Bootstrap
    from tau2.report import build_report, run_page, run_summary, write_page
    from tau2.rundir import load_run

    report = build_report(load_run(run_dir), Bootstrap(samples=bootstrap_samples, seed=bootstrap_seed))
    for warning in report.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if html is not None:
        write_page(html, run_page(report))
        typer.echo(f"wrote {html}", err=True)
    if json_output:
        typer.echo(report.model_dump_json(indent=2))
        return
    console = Console()
    for renderable in run_summary(report):
        console.print(renderable)
