"""Collateral damage in reports: the rate beside pass^k in one line, the seats and tools that wrote it, and
every simulation with collateral damage or missing writes (rendered by the terminal and the HTML page)."""

from __future__ import annotations

from collections.abc import Mapping

from tau2.metrics import CollateralSummary
from tau2.report import fmt
from tau2.report.tables import TableData
from tau2.world import RecordWrite

LISTED_RECORDS = 3
"""Records named per simulation in the table; the rest are counted."""


def rate_text(summary: CollateralSummary) -> str:
    """The collateral rate with its interval, e.g. `1.000 [0.98, 1.00]`."""
    e = summary.rate
    return f"{fmt.rate(e.value)} {fmt.interval(e.ci_low, e.ci_high)}".strip()


def counts_text(summary: CollateralSummary) -> str:
    """How many checked simulations had collateral damage, e.g. `159 of 159`."""
    return f"{fmt.count(summary.damaged)} of {fmt.count(summary.checked)}"


def rate_line(summary: CollateralSummary | None) -> str | None:
    """One line: the collateral rate, missing writes where the reward compares the database, and how many
    simulations were not checked; None when no simulation was."""
    if summary is None or not (summary.checked or summary.unchecked):
        return None
    parts = [
        f"collateral damage {rate_text(summary)}: {counts_text(summary)} simulations changed records the "
        "reference leaves alone"
    ]
    if summary.database_checked:
        parts.append(
            f"missing writes {fmt.count(summary.missing)} of {fmt.count(summary.database_checked)} "
            "database-scored simulations"
        )
    if summary.unchecked:
        parts.append(f"{fmt.count(summary.unchecked)} not checked (recorded before collateral was)")
    return fmt.SEPARATOR.join(parts)


def paired_line(summaries: Mapping[str, CollateralSummary], a: str, b: str) -> str | None:
    """Both runs' collateral rates over the shared tasks in one line; None when neither was checked."""
    parts = [
        f"{label} {rate_text(summaries[side])} ({counts_text(summaries[side])})"
        for side, label in (("a", a), ("b", b))
        if side in summaries and summaries[side].checked
    ]
    return None if not parts else "collateral damage: " + fmt.SEPARATOR.join(parts)


def calls(summary: CollateralSummary | None) -> TableData:
    """Per seat and tool, the simulations and records it damaged."""
    rows = [
        [call.seat, call.tool, fmt.count(call.simulations), fmt.count(call.records)]
        for call in ([] if summary is None else summary.calls)
    ]
    return TableData(
        "Collateral writes by seat and tool", ["seat", "tool", "simulations", "records"], rows, 2
    )


def simulations(
    summary: CollateralSummary | None, title: str = "Simulations with collateral damage"
) -> TableData:
    """Every simulation with collateral damage or missing writes: the records, and who wrote them."""
    rows = [
        [
            simulation.task_id,
            str(simulation.trial),
            written(simulation.extra, "no call"),
            "" if simulation.missing is None else written(simulation.missing, "left alone"),
            fmt.rate(simulation.reward),
        ]
        for simulation in ([] if summary is None else summary.simulations)
    ]
    columns = ["task", "trial", "records changed beside the reference", "missing writes", "reward"]
    return TableData(title, columns, rows, text_columns=4)


def written(writes: list[RecordWrite], uncalled: str) -> str:
    """Records with the seat and tool of each call that wrote them (`uncalled` for a record no call wrote),
    the first `LISTED_RECORDS` named."""
    named = [f"{write.record} ({_writers(write) or uncalled})" for write in writes[:LISTED_RECORDS]]
    if len(writes) > LISTED_RECORDS:
        named.append(f"+{len(writes) - LISTED_RECORDS} more")
    return "; ".join(named)


def _writers(write: RecordWrite) -> str:
    """The seats and tools of the calls that wrote a record, each once, in order."""
    return ", ".join(dict.fromkeys(f"{call.seat.value} {call.tool}" for call in write.calls))
