"""`tau2 report`: pass^k with intervals, breakdowns, per-action diagnostics, costs and terminations."""

from __future__ import annotations

from typing import Annotated

import typer

from tau2.cli.options import (
    BootstrapSamples,
    BootstrapSeed,
    HtmlFile,
    JsonOutput,
    MaxK,
    RunDir,
    bootstrap_options,
    emit_report,
    guard_outputs,
)

Full = Annotated[bool, typer.Option("--full", help="Print every table, not just the headline.")]


def command(
    run_dir: RunDir,
    json_output: JsonOutput = False,
    html: HtmlFile = None,
    full: Full = False,
    bootstrap_samples: BootstrapSamples = 1000,
    bootstrap_seed: BootstrapSeed = 0,
    max_k: MaxK = None,
) -> None:
    """Report one run: a one-screen headline (--full: every table), or JSON with --json; --html FILE also
    writes a self-contained page with plots and every simulation's transcript."""
    from tau2._jsonfile import collector_paused
    from tau2.cli._report_sections import extra_sections, imported_tables
    from tau2.report import read_report, run_page_parts, run_tables

    bootstrap = bootstrap_options(bootstrap_samples, bootstrap_seed)
    guard_outputs(html, [run_dir])
    with collector_paused():
        run, report = read_report(run_dir, bootstrap, max_k)
        if report.robustness is not None:  # a perturbed arm: against its experiment's unperturbed arm
            from tau2.experiments import against_unperturbed_arm

            report = against_unperturbed_arm(run, report, bootstrap)
    emit_report(
        report,
        report.warnings,
        html=html,
        json_output=json_output,
        page=lambda r: run_page_parts(r, run.records, imported_tables(run_dir)),
        summary=lambda r: [*run_tables(r, full=full), *extra_sections(run_dir)],
    )
