"""Sections `tau2 report` adds for runs that carry data from outside tools: human labels imported from
Potato (set against the assertion reward) and the rewards τ²-bench recorded for an imported run."""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType
from rich.table import Table

from tau2._display import markup_literal as literal
from tau2.interfaces._agreement import label_agreement
from tau2.interfaces._potato_import import HumanLabel, load_labels
from tau2.interfaces._tau2bench_import import load_import
from tau2.runs import load_run


def extra_sections(run_dir: Path) -> list[RenderableType]:
    """The extra tables for the run at `run_dir` (none for an ordinary run)."""
    sections: list[RenderableType] = []
    labels = load_labels(run_dir)
    if labels is not None:
        sections.extend(_human_labels(run_dir, labels.labels))
    imported = load_import(run_dir)
    if imported is not None:
        table = Table("task", "trial", "τ²-bench reward", "our reward", title="Recorded by τ²-bench")
        disagreeing = imported.disagreements()
        for simulation in disagreeing:
            table.add_row(
                literal(simulation.task_id),
                str(simulation.trial),
                str(simulation.recorded_reward),
                str(simulation.reward),
            )
        agreeing = len(imported.simulations) - len(disagreeing)
        sections.append(f"τ²-bench rewards: {agreeing} of {len(imported.simulations)} agree with ours")
        if disagreeing:
            sections.append(table)
    return sections


def _human_labels(run_dir: Path, labels: list[HumanLabel]) -> list[RenderableType]:
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
