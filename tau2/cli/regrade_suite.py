"""`tau2 regrade RUN --suite FILE`: re-score a run's stored trajectories against other task definitions
(replayed in the world, no model called) into a new run, listing each verdict that flips."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

NAME = "regrade"
"""The command's name (the module's would be `regrade-suite`)."""
SHOWN_IDS = 20
"""How many ids a line of tasks the run and the file do not share names (then `…`)."""


def command(
    run_dir: Annotated[
        Path, typer.Argument(help="The run directory to regrade (read only).", show_default=False)
    ],
    suite: Annotated[
        Path,
        typer.Option(
            "--suite",
            help="Task file (ours or τ²-bench's) to score the stored trajectories against.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="New run directory to write (must not exist or be empty).", show_default=False
        ),
    ],
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Directory with the domain's data files (default: the run's).",
            exists=True,
            file_okay=False,
        ),
    ] = None,
) -> None:
    """Regrade a run against another task file: each stored trajectory's tool calls run again in a fresh
    world of the file's task, without any model; the new scores go to a new run (RUN is left untouched).
    Prints each verdict that flips and why, and the tasks the run and the file do not share."""
    from tau2.audit import regrade_suite
    from tau2.cli._output import say

    report = regrade_suite(run_dir, suite, out, data_dir=data_dir)
    say(f"regraded {report.regraded} simulations of {report.source} against {report.suite} into {report.out}")
    if report.provenance_known:
        say(f"tasks whose content differs from the run's: {len(report.changed_tasks)}")
    else:
        say("the run recorded no task hashes (made before runs did): which tasks changed is unknown")
    for flip in report.flips:
        say(f"flip: {flip.describe()}")
    say(f"verdicts that flip: {len(report.flips)}")
    for ids, what in (
        (report.only_in_run, "tasks in the run but not in the file (not regraded)"),
        (report.only_in_suite, "tasks in the file but not in the run (never simulated)"),
        (report.not_regraded, "simulations not regraded (an infrastructure error, or no stored trajectory)"),
    ):
        if ids:
            more = ", …" if len(ids) > SHOWN_IDS else ""
            say(f"{len(ids)} {what}: {', '.join(ids[:SHOWN_IDS])}{more}")
