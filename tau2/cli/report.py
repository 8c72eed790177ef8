"""`tau2 report`: pass^k with intervals, breakdowns, per-action diagnostics, costs and terminations."""

from __future__ import annotations

from tau2.cli.options import BootstrapSamples, BootstrapSeed, HtmlFile, JsonOutput, RunDir, emit_report


def command(
    run_dir: RunDir,
    json_output: JsonOutput = False,
    html: HtmlFile = None,
    bootstrap_samples: BootstrapSamples = 1000,
    bootstrap_seed: BootstrapSeed = 0,
) -> None:
    """Report one run: terminal tables, or JSON with --json; --html FILE also writes an HTML page."""
    from tau2.interfaces._report_sections import extra_sections
    from tau2.metrics import Bootstrap
    from tau2.report import build_report, run_page, run_tables
    from tau2.rundir import load_run

    report = build_report(load_run(run_dir), Bootstrap(samples=bootstrap_samples, seed=bootstrap_seed))
    emit_report(
        report,
        report.warnings,
        html=html,
        json_output=json_output,
        page=run_page,
        summary=lambda built: [*run_tables(built), *extra_sections(run_dir)],
    )
