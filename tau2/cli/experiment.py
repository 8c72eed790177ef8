"""`tau2 experiment`: run an experiment's arms as paired runs, and report its verdict."""

from __future__ import annotations

import typer

from tau2.cli import experiment_plan, experiment_report, experiment_run

app = typer.Typer(no_args_is_help=True, help="Experiments: arms of one base configuration, paired.")
app.command("run")(experiment_run.command)
app.command("report")(experiment_report.command)
app.command("plan")(experiment_plan.command)
