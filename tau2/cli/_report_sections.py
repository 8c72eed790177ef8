"""Sections `tau2 report` adds for runs that carry data from outside tools: human labels imported from
Potato (set against the assertion reward) and the rewards τ²-bench recorded for an imported run (which
the HTML report shows too)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table

from tau2._display import markup_literal as literal
from tau2.report import TableData, rich_table
from tau2.runs import load_run

if TYPE_CHECKING:
    from tau2.annotation import HumanLabel


def extra_sections(run_dir: Path) -> list[RenderableType]:
    """The extra tables for the run at `run_dir` (none for an ordinary run)."""
    from tau2.annotation import load_labels  # here, like the other sidecar readers: `--json` needs none

    sections: list[RenderableType] = []
    labels = load_labels(run_dir)
    if labels is not None:
        sections.extend(_human_labels(run_dir, labels.labels))
    sections.extend(rich_table(table) for table in imported_tables(run_dir))
    return sections


def imported_tables(run_dir: Path) -> list[TableData]:
    """The tables of a run imported from τ²-bench (none for other runs): how many rewards and tool-call
    outcomes agree with the recorded ones (and how many retrieval calls kept their recorded answers rather
    than being replayed), and every simulation whose reward differs. The terminal report and the HTML
    page show the same tables."""
    from tau2.tau2bench_results import load_import

    imported = load_import(run_dir)
    if imported is None:
        return []
    disagreeing = imported.disagreements()
    total, calls = len(imported.simulations), imported.tool_calls
    summary = TableData(
        title="Recorded by τ²-bench",
        columns=["", "agree", "of"],
        rows=[
            ["rewards", str(total - len(disagreeing)), str(total)],
            ["tool-call outcomes", str(calls - imported.mismatches), str(calls)],
            *([["retrieval calls, kept as recorded", "", str(imported.kept)]] if imported.kept else []),
        ],
    )
    differing = TableData(
        title="Simulations whose τ²-bench reward differs from ours",
        columns=["simulation", "task", "trial", "τ²-bench reward", "our reward"],
        rows=[
            [s.simulation_id, s.task_id, str(s.trial), str(s.recorded_reward), str(s.reward)]
            for s in disagreeing
        ],
        text_columns=2,
    )
    return [table for table in (summary, differing) if not table.empty]


def _human_labels(run_dir: Path, labels: list[HumanLabel]) -> list[RenderableType]:
    from tau2.annotation import label_agreement

    agreement = label_agreement(labels, load_run(run_dir).records)
    summary = Table("", "value", title="Human success labels vs assertion reward")
    summary.add_row("judgements", str(agreement.judgements))
    summary.add_row("agreement", "n/a" if agreement.agreement is None else f"{agreement.agreement:.3f}")
    summary.add_row("Cohen's kappa", "n/a" if agreement.kappa is None else f"{agreement.kappa:.3f}")
    sections: list[RenderableType] = [summary]
    if agreement.disagreements:
        table = Table("simulation", "annotator", "human label", "reward", title="Disagreeing simulations")
        for item in agreement.disagreements:
            table.add_row(
                literal(item.simulation),
                literal(item.annotator),
                literal(item.label),
                str(item.reward),
            )
        sections.append(table)
    return sections
