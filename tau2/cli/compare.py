"""`tau2 compare`: run B against run A on their shared tasks, with paired bootstrap intervals."""

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
    MaxK,
    bootstrap_options,
    emit_report,
    guard_outputs,
    refuse_mismatches,
)
from tau2.cli.report import Full
from tau2.metrics.paired import PairBy


def command(
    run_a: Annotated[Path, typer.Argument(help="Run directory A (the baseline).", show_default=False)],
    run_b: Annotated[
        Path, typer.Argument(help="Run directory B (differences are B − A).", show_default=False)
    ],
    json_output: JsonOutput = False,
    html: HtmlFile = None,
    pair_by: Annotated[
        PairBy | None,
        typer.Option(
            "--pair-by",
            help="Pair identical task IDs (task) or IDs without their [PERSONA:x] part (composition). "
            "Default: composition when the runs differ by their tasks' personas, else task.",
        ),
    ] = None,
    full: Full = False,
    bootstrap_samples: BootstrapSamples = 1000,
    bootstrap_seed: BootstrapSeed = 0,
    max_k: MaxK = None,
    allow_mismatch: AllowMismatch = False,
) -> None:
    """Compare two runs on the tasks both share: what they differ in (mode, persona, seats, policy,
    retrieval, …), pass^k and what B costs in turns, tokens, dollars, tool errors and endings per seat
    (--full: every table; --html: with the transcripts of the tasks that flip); refuses runs that share no
    task, and runs whose scores rest on other content (another domain, other task content, other domain
    data) unless given --allow-mismatch."""
    from tau2._jsonfile import collector_paused
    from tau2.report import build_comparison, comparison_page_parts, comparison_tables
    from tau2.runs import check_provenance, load_run

    bootstrap = bootstrap_options(bootstrap_samples, bootstrap_seed)
    guard_outputs(html, [run_a, run_b])
    with collector_paused():
        a, b = load_run(run_a), load_run(run_b)
        provenance = check_provenance([a.manifest, b.manifest])
        refuse_mismatches(provenance.mismatches, allow_mismatch)
        report = build_comparison(a, b, pair_by, bootstrap, max_k)
    emit_report(
        report,
        [*provenance.mismatches, *provenance.notes, *report.warnings],
        html=html,
        json_output=json_output,
        page=lambda r: comparison_page_parts(r, a.records, b.records),
        summary=lambda r: comparison_tables(r, full=full),
    )
