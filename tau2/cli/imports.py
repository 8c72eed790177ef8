"""`tau2 import`: read another tool's output into a run directory (τ²-bench results, Potato annotations)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import DataDir

app = typer.Typer(no_args_is_help=True, help="Read another tool's output into a run directory.")


@app.command("tau2bench")
def tau2bench(
    results: Annotated[Path, typer.Argument(help="A τ²-bench results JSON file.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The new run directory.", show_default=False)],
    data_dir: DataDir = None,
) -> None:
    """Replay and re-evaluate every simulation of RESULTS in our world into the run directory --out."""
    from tau2.interfaces._tau2bench_import import import_results

    imported = import_results(results, out, data_dir)
    total = len(imported.simulations)
    mismatches = sum(simulation.tool_result_mismatches for simulation in imported.simulations)
    calls = sum(simulation.tool_calls for simulation in imported.simulations)
    disagreements = imported.disagreements()
    typer.echo(
        f"imported {total} simulations into {out}: {total - len(disagreements)} agree with the recorded "
        f"reward, {len(disagreements)} disagree; {calls - mismatches} of {calls} tool results agree"
    )
    for simulation in disagreements:
        typer.echo(
            f"  {simulation.task_id} trial {simulation.trial}: recorded {simulation.recorded_reward}, "
            f"ours {simulation.reward}"
        )
