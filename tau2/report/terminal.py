"""Terminal rendering of reports with rich tables."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tau2.report import tables
from tau2.report.schema import ComparisonReport, RunReport
from tau2.report.tables import TableData


def rich_table(data: TableData) -> Table:
    """A rich table of `data`; cells are plain text, never markup."""
    table = Table(title=Text(data.title, style="bold"), title_justify="left")
    for index, column in enumerate(data.columns):
        table.add_column(
            Text(column), justify="left" if index < data.text_columns else "right", overflow="fold"
        )
    for row in data.rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def run_tables(report: RunReport) -> list[RenderableType]:
    """What `tau2 report` prints."""
    sections = [
        tables.configuration(report),
        tables.summary(report),
        tables.pass_hat_k(report.pass_hat_k, report.bootstrap.level),
        *(tables.breakdown(name, groups) for name, groups in report.breakdowns.items()),
        tables.actions(report.actions),
        *([tables.checks(report.checks)] if report.checks else []),
        tables.usage(report.usage),
        tables.terminations(report.terminations),
    ]
    return [rich_table(section) for section in sections]


def comparison_tables(report: ComparisonReport) -> list[RenderableType]:
    """What `tau2 compare` prints."""
    sections = [
        tables.run_refs(report),
        tables.pairing(report),
        tables.paired_pass_hat_k(report.pass_hat_k, report.bootstrap.level),
        tables.flips(report.flips),
        *(tables.paired_breakdown(name, groups) for name, groups in report.breakdowns.items()),
        tables.action_diffs(report.actions),
    ]
    heading = Text(
        f"Comparison: {report.title}  (A = {report.a.run_id}, B = {report.b.run_id})", style="bold"
    )
    return [heading, *(rich_table(section) for section in sections)]
