"""`tau2 import`: read another tool's output into a run directory (τ²-bench results, Potato annotations)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import DataDir, RunDir

app = typer.Typer(no_args_is_help=True, help="Read another tool's output into a run directory.")


@app.command("potato")
def potato(
    annotation_dir: Annotated[
        Path, typer.Argument(help="The Potato project (or its annotation output folder).", show_default=False)
    ],
    run_dir: RunDir,
    replace: Annotated[bool, typer.Option("--replace", help="Replace labels imported before.")] = False,
) -> None:
    """Read the annotations of an exported run back into RUN_DIR; `tau2 report` then compares them."""
    from tau2.annotation import import_potato_annotations as import_annotations
    from tau2.cli._output import say

    imported = import_annotations(annotation_dir, run_dir, replace=replace)
    annotators = sorted({label.annotator for label in imported.labels})
    say(f"imported {len(imported.labels)} labels by {len(annotators)} annotators into {run_dir}")


@app.command("tau2bench")
def tau2bench(
    results: Annotated[Path, typer.Argument(help="A τ²-bench results JSON file.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The new run directory.", show_default=False)],
    data_dir: DataDir = None,
) -> None:
    """Replay and re-evaluate every simulation of RESULTS in our world into the run directory --out."""
    from tau2.cli._output import say
    from tau2.tau2bench_results import TAU2BENCH_DATA_HINT
    from tau2.tau2bench_results import import_tau2bench_results as import_results

    imported = import_results(results, out, data_dir)
    for warning in imported.warnings:
        say(f"warning: {warning}", err=True)
    total = len(imported.simulations)
    disagreements = imported.disagreements()
    calls, mismatches = imported.tool_calls, imported.mismatches
    kept = f"; {imported.kept} retrieval calls kept their recorded answers" if imported.kept else ""
    say(
        f"imported {total} simulations into {out}: {total - len(disagreements)} agree with the recorded "
        f"reward, {len(disagreements)} disagree; {calls - mismatches} of {calls} replayed tool calls had "
        f"the recorded outcome{kept}"
    )
    for simulation in disagreements:
        say(
            f"  {simulation.task_id} trial {simulation.trial}: recorded {simulation.recorded_reward}, "
            f"ours {simulation.reward}"
        )
    for simulation in imported.simulations:
        for mismatch in simulation.mismatches:
            say(f"  {simulation.simulation_id} {mismatch.describe()}")
    if mismatches and data_dir is None:
        say(f"  ({TAU2BENCH_DATA_HINT})")
