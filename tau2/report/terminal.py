"""Terminal rendering of reports with rich: by default a headline that fits a 120×40 screen (pass^k with
intervals, the configuration in two lines, the main breakdown, how simulations ended); `full` for every
table. Sections without data are left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table

from tau2._display import data_text
from tau2.metrics import BOTH
from tau2.report import audit, collateral, cost, fmt, judges, tables
from tau2.report.factors import differ_line, side_labels
from tau2.report.robustness import NOTICED_LISTED, noticed_lines, robustness_table
from tau2.report.schema import ComparisonReport, RunReport
from tau2.report.tables import TableData

HEADLINE_GROUPS: Final = 8
"""Rows of the main breakdown shown by default (the weakest groups); `--full` shows them all."""
HEADLINE_MEASURES: Final = ("turns", "messages", "tool calls", "tool errors", "tokens", "cost")


@dataclass(frozen=True)
class Line:
    """One line of text made of parts joined by `fmt.SEPARATOR`. On a console too narrow for it, it is broken
    between parts, as many on a line as fit; a part too long for a line alone wraps between its words. No
    word is ever cut."""

    text: str
    style: str = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for row in packed(self.text.split(fmt.SEPARATOR), options.max_width):
            yield data_text(row, style=self.style)


def packed(parts: Sequence[str], width: int) -> list[str]:
    """`parts` joined by `fmt.SEPARATOR` into rows of at most `width` cells, in order, each part whole on one
    row (a part wider than `width` alone on its row)."""
    rows: list[str] = []
    for part in parts:
        if rows and cell_len(rows[-1]) + cell_len(fmt.SEPARATOR) + cell_len(part) <= width:
            rows[-1] += fmt.SEPARATOR + part
        else:
            rows.append(part)
    return rows


def line(text: str, style: str = "") -> Line:
    """A headline (`Line`): parts joined by `fmt.SEPARATOR`, broken between them rather than cut."""
    return Line(text, style)


def rich_table(data: TableData) -> Table:
    """A compact rich table of `data`; cells are plain text, never markup, and never wrap mid-token."""
    table = Table(
        title=data_text(data.title, style="bold"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=(0, 1),
    )
    for index, column in enumerate(data.columns):
        text = index < data.text_columns
        table.add_column(
            data_text(column),
            justify="left" if text else "right",
            overflow="ellipsis" if text else "fold",
            no_wrap=text,
        )
    for row in data.rows:
        table.add_row(*(data_text(cell) for cell in row))
    return table


def _rendered(sections: list[TableData]) -> list[RenderableType]:
    return [rich_table(section) for section in sections if not section.empty]


def run_tables(report: RunReport, full: bool = False) -> list[RenderableType]:
    """What `tau2 report` prints: the headline, or with `full` every table."""
    head: list[RenderableType] = [
        line(tables.config_line(report), "bold"),
        line(tables.totals_line(report)),
    ]
    level = report.bootstrap.level
    if not full:
        ks = list(report.pass_hat_k)
        main = _weakest(report, "intent", sorted({ks[0], ks[-1]}, key=int) if ks else [])
        hint = "--full: every breakdown, actions, cost, tasks; --html FILE: plots and transcripts; tau2 view"
        return [
            *head,
            *_rendered(
                [
                    tables.pass_hat_k(report.pass_hat_k, level, tables.headline_ks(list(report.pass_hat_k))),
                    tables.missing(report.missing, tables.headline_ks(list(report.pass_hat_k))),
                    main,
                    tables.checks(report.checks),
                    tables.terminations(report.termination_outcomes, report.totals.excluded),
                ]
            ),
            *_robustness(report),
            *_audit_line(report),
            *_collateral_line(report),
            *_judge_lines(report),
            *_cost_lines(report),
            line(hint, "dim"),
        ]
    return [
        *head,
        *_rendered(
            [
                tables.pass_hat_k(report.pass_hat_k, level),
                tables.missing(report.missing),
                *(tables.breakdown(name, groups) for name, groups in report.breakdowns.items()),
                tables.terminations(report.termination_outcomes, report.totals.excluded),
                audit.user_checks(report.audit),
                audit.attribution(report.audit),
                audit.failures(report.audit),
                collateral.calls(report.collateral),
                collateral.simulations(report.collateral),
                tables.actions(report.actions),
                tables.checks(report.checks),
                tables.usage(report.usage),
                cost.cost_table(report.cost),
                judges.costs(report.judges),
                judges.disagreements(report.judges),
                tables.tasks(report.tasks),
                tables.summary(report),
                tables.configuration(report),
            ]
        ),
        *(line(f"audit: {note}", "dim") for note in audit.notes(report.audit)),
        *_collateral_line(report),
        *_robustness(report, full=True),
        *_judge_lines(report),
        *_cost_lines(report),
    ]


def _robustness(report: RunReport, full: bool = False) -> list[RenderableType]:
    """The robustness profile of a perturbed run, and where the agent noticed (all of them with `full`)."""
    profiles = [] if report.robustness is None else [report.robustness]
    return [
        *_rendered([robustness_table(profiles, report.bootstrap.level)]),
        *(line(text, "dim") for text in noticed_lines(profiles, None if full else NOTICED_LISTED)),
    ]


def _audit_line(report: RunReport) -> list[RenderableType]:
    """Failed simulations by cause, when some failed."""
    text = audit.attribution_line(report.audit)
    return [] if text is None else [line(text)]


def _collateral_line(report: RunReport) -> list[RenderableType]:
    """The collateral rate, when any simulation was checked for it."""
    text = collateral.rate_line(report.collateral)
    return [] if text is None else [line(text)]


def _judge_lines(report: RunReport) -> list[RenderableType]:
    """The judges' cost, and a panel's agreement, one line each when there are judges."""
    texts = [judges.cost_line(report.usage, report.judges), judges.agreement_line(report.judges)]
    return [line(text) for text in texts if text is not None]


def _cost_lines(report: RunReport) -> list[RenderableType]:
    """The cost per simulation and per success, and what not asking the judges saved, one line each."""
    texts = [cost.cost_line(report.cost, report.bootstrap.level), cost.saving_line(report.cost)]
    return [line(text) for text in texts if text is not None]


def _weakest(report: RunReport, name: str, ks: list[str]) -> TableData:
    """The breakdown `name` at pass^1 and the largest k, limited to its weakest groups when it has many."""
    groups = report.breakdowns.get(name, [])
    if len(groups) <= HEADLINE_GROUPS:
        return tables.breakdown(name, groups, ks)
    weakest = sorted(groups, key=lambda g: g.pass_hat_k["1"].value or 0.0)[:HEADLINE_GROUPS]
    data = tables.breakdown(name, weakest, ks)
    return TableData(
        f"By {name}: the {HEADLINE_GROUPS} weakest of {len(groups)} groups", data.columns, data.rows
    )


def comparison_tables(report: ComparisonReport, full: bool = False) -> list[RenderableType]:
    """What `tau2 compare` prints: the paired headline and what guiding costs, or with `full` everything."""
    a, b = side_labels(report.factors, report.a.run_id, report.b.run_id)
    level = report.bootstrap.level
    heading = line(f"Comparison: {report.title}", "bold")
    legend = line(
        f"A = {a} ({report.a.run_id}) · B = {b} ({report.b.run_id}) · paired by {report.pair_by.value} on "
        f"{fmt.count(report.shared)} shared tasks (only A {report.only_a:,}, only B {report.only_b:,})"
    )
    effort = [m for m in report.effort if full or m.seat == BOTH or m.measure in HEADLINE_MEASURES]
    headline_ks = None if full else tables.headline_ks(list(report.pass_hat_k))
    sections = [
        tables.paired_pass_hat_k(report.pass_hat_k, level, a, b, headline_ks),
        tables.paired_missing(report.missing, a, b, None if full else ["1"]),
        tables.effort(effort, level, a, b, tables.absent_seats(report)),
        tables.paired_terminations(report.terminations, level, a, b),
        tables.flips(report.flips, listed=False),
    ]
    if full:
        sections += [
            *(tables.paired_breakdown(name, groups) for name, groups in report.breakdowns.items()),
            tables.action_diffs(report.actions, level),
            tables.flips(report.flips, listed=True),
            tables.run_refs(report),
            tables.pairing(report),
        ]
    damage = collateral.paired_line(report.collateral, a, b)
    rendered = [heading, legend, line(differ_line(report.factors)), *_rendered(sections)]
    if damage is not None:
        rendered.append(line(damage))
    if full:
        rendered += _rendered(
            [
                collateral.simulations(
                    report.collateral.get(side), f"{label}: simulations with collateral damage"
                )
                for side, label in (("a", a), ("b", b))
            ]
        )
    if not full:
        rendered.append(
            line("--full: breakdowns, per-action differences, flipping tasks; --html FILE: plots", "dim")
        )
    return rendered
