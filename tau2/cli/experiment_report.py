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
    fail_if_worse: Annotated[
        bool,
        typer.Option(
            "--fail-if-worse",
            help="Exit 1 when an arm is significantly worse than the baseline (McNemar, Holm-corrected over "
            "the arms, at 1 − the intervals' level) and its Δpass^1 is below −MARGIN; for CI.",
        ),
    ] = False,
    margin: Annotated[
        float,
        typer.Option(
            "--margin",
            metavar="M",
            min=0.0,
            max=1.0,
            help="With --fail-if-worse: the loss of pass^1 tolerated (0.05 = five points).",
        ),
    ] = 0.0,
) -> None:
    """Report an experiment: each arm's pass^k, and each arm against the baseline with a verdict, what the
    arms differ in, where the difference comes from, the tasks that flip and per-seat cost (--json: every
    figure; --html FILE: a page linking each flip to its transcripts in both arms). Arms whose scores rest
    on other content than the baseline's (other task content, other domain data) are refused unless given
    --allow-mismatch; what arms vary (mode, persona, seats, policy, retrieval) is named, never refused.

    Exit codes: 0 reported; 1 with --fail-if-worse when an arm is significantly worse than the baseline by
    more than --margin (the report is printed first); 2 bad input (a missing arm, a malformed file, runs
    that cannot be compared); 3 the machine refused (permissions, disk)."""
    from tau2._jsonfile import collector_paused
    from tau2.cli._exit import ExitCode
    from tau2.cli._output import is_stdout, say
    from tau2.experiments import (
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
        checks = {
            name: check_provenance([baseline, run.manifest])
            for name, run in runs.items()
            if name != manifest.config.baseline
        }
        mismatches = [f"arm {name}: {line}" for name, check in checks.items() for line in check.mismatches]
        refuse_mismatches(mismatches, allow_mismatch)
        report = build_experiment_report(experiment_dir, manifest, runs, bootstrap)
    emit_report(
        report,
        [*mismatches, *(note for check in checks.values() for note in check.notes), *report.warnings],
        html=html,
        json_output=json_output,
        page=lambda r: experiment_page(r, runs),
        summary=experiment_tables,
    )
    if fail_if_worse:
        worse = [c for c in report.comparisons if c.worse_by_more_than(margin)]
        for c in worse:
            p = c.p_value if c.p_holm is None else c.p_holm
            arms = f"{c.family} arm{'' if c.family == 1 else 's'}"
            say(
                f"fail: {c.arm} is significantly worse than {c.baseline} by more than {margin:g} pass^1 "
                f"(Δ {c.delta_pass_hat_1 or 0.0:+.3f}; Holm p {'< 0.001' if p < 0.001 else f'= {p:.3f}'} "
                f"over {arms})",
                err=True,
            )
        if worse:
            raise typer.Exit(ExitCode.FAILED)
