"""`tau2 experiment`: experiments, arms of one base configuration paired on tasks and seeds."""

from __future__ import annotations

import typer

from tau2.cli import experiment_run

app = typer.Typer(no_args_is_help=True, help="Experiments: arms of one base configuration, paired.")
app.command("run")(experiment_run.command)
