"""`tau2 experiment report`: every arm of an experiment against its baseline, with a verdict per arm."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import (
    AllowMismatch,
    BootstrapSamples,
    BootstrapSeed,
    HtmlFile,
    JsonOutput,
    bootstrap_options,
    emit_report,
    guard_outputs,
    refuse_mismatches,
)


def command(
    experiment_dir: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="An experiment directory (written by `tau2 experiment run`).",
            show_default=False,
        ),
    ],
    json_output: JsonOutput = False,
    html: HtmlFile = None,
    bootstrap_samples: BootstrapSamples = 1000,
    bootstrap_seed: BootstrapSeed = 0,
    allow_mismatch: AllowMismatch = False,
) -> None:
    """Report an experiment: each arm's pass^k, and each arm against the baseline with a verdict, where the
    difference comes from, the tasks that flip and per-seat cost (--json: every figure; --html FILE: a page
    linking each flip to its transcripts in both arms). Arms whose tasks' content differs from the
    baseline's are refused unless given --allow-mismatch; other differences (a policy variant, a persona)
    are what arms are for, and are noted."""
    from tau2._jsonfile import collector_paused
    from tau2.cli._output import is_stdout
    from tau2.report import (
        build_experiment_report,
        experiment_page,
        experiment_tables,
        load_arms,
        refuse_own_files,
    )
    from tau2.runs import check_provenance

    bootstrap = bootstrap_options(bootstrap_samples, bootstrap_seed)
    if html is not None and not is_stdout(html):
        refuse_own_files(experiment_dir, html)
    guard_outputs(html, [experiment_dir])
    with collector_paused():
        manifest, runs = load_arms(experiment_dir)
        baseline = runs[manifest.config.baseline].manifest
        checks = [
            check_provenance([baseline, run.manifest], refusing=("task",))
            for name, run in runs.items()
            if name != manifest.config.baseline
        ]
        refuse_mismatches([line for check in checks for line in check.mismatches], allow_mismatch)
        report = build_experiment_report(experiment_dir, manifest, runs, bootstrap)
    emit_report(
        report,
        [*(line for check in checks for line in (*check.mismatches, *check.notes)), *report.warnings],
        html=html,
        json_output=json_output,
        page=lambda r: experiment_page(r, runs),
        summary=experiment_tables,
    )
