"""Self-contained HTML pages for reports: inline CSS and inline SVG plots, no scripts, no links."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path

from tau2.errors import UserInputError
from tau2.metrics import GroupStat, PairedGroup, SeatUsage
from tau2.report import fmt, tables
from tau2.report.schema import ComparisonReport, RunReport
from tau2.report.svg import Bar, Point, Series, bar_chart, line_chart
from tau2.report.tables import TableData

_CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; } .warning { color: #a05a00; }
"""


def run_page(report: RunReport) -> str:
    """The HTML report of one run."""
    m = report.manifest
    breakdown_charts = [
        bar_chart(f"pass^1 by {name}", [_group_bar(g) for g in groups])
        for name, groups in report.breakdowns.items()
    ]
    body = [
        _warnings(report.warnings),
        _table(tables.configuration(report)),
        _table(tables.summary(report)),
        _section(
            "pass^k",
            _pass_hat_k_chart(report),
            _table(tables.pass_hat_k(report.pass_hat_k, report.bootstrap.level)),
        ),
        _section(
            "Breakdowns",
            _charts(breakdown_charts),
            *(_table(tables.breakdown(name, groups)) for name, groups in report.breakdowns.items()),
        ),
        _section("Reference actions", _actions_chart(report), _table(tables.actions(report.actions))),
        *([_section("Evaluation kinds", _table(tables.checks(report.checks)))] if report.checks else []),
        _section("Cost and tokens", _cost_chart(report.usage), _table(tables.usage(report.usage))),
        _section("Terminations", _table(tables.terminations(report.terminations))),
        _section("Tasks", _table(tables.tasks(report.tasks))),
        _section("Simulations", _table(tables.simulations(report.simulations))),
    ]
    return _page(f"tau2 report: {m.run_id} ({m.mode_label()}, {m.agent.label()})", body)


def comparison_page(report: ComparisonReport) -> str:
    """The HTML page of a paired comparison."""
    level = report.bootstrap.level
    ks = [int(k) for k in report.pass_hat_k]
    curves = [
        Series(
            f"A: {report.a.run_id}",
            [Point(k, e.a) for k, e in zip(ks, report.pass_hat_k.values(), strict=True)],
        ),
        Series(
            f"B: {report.b.run_id}",
            [Point(k, e.b) for k, e in zip(ks, report.pass_hat_k.values(), strict=True)],
        ),
    ]
    diff = Series(
        "B − A",
        [Point(k, e.diff, e.ci_low, e.ci_high) for k, e in zip(ks, report.pass_hat_k.values(), strict=True)],
    )
    breakdown_charts = [
        bar_chart(f"Δ pass^1 by {name} (B − A)", [_diff_bar(g) for g in groups], lo=-1.0)
        for name, groups in report.breakdowns.items()
    ]
    action_bars = [Bar(d.name, d.diff, note=fmt.signed(d.diff)) for d in report.actions]
    body = [
        _warnings(report.warnings),
        _table(tables.run_refs(report)),
        _table(tables.pairing(report)),
        _section(
            "pass^k",
            _charts(
                [
                    line_chart("pass^k vs k", "k", curves),
                    line_chart(f"B − A with {level:.0%} paired interval", "k", [diff], lo=-1.0),
                ]
            ),
            _table(tables.paired_pass_hat_k(report.pass_hat_k, level)),
        ),
        _section("Tasks that flip", _table(tables.flips(report.flips))),
        _section(
            "Breakdowns",
            _charts(breakdown_charts),
            *(_table(tables.paired_breakdown(name, groups)) for name, groups in report.breakdowns.items()),
        ),
        _section(
            "Reference actions",
            bar_chart("Δ performed rate (B − A)", action_bars, lo=-1.0),
            _table(tables.action_diffs(report.actions)),
        ),
    ]
    return _page(f"tau2 compare: {report.title}", body)


def _pass_hat_k_chart(report: RunReport) -> str:
    points = [Point(int(k), e.value, e.ci_low, e.ci_high) for k, e in report.pass_hat_k.items()]
    title = f"pass^k vs k with {report.bootstrap.level:.0%} intervals"
    return line_chart(title, "k", [Series(report.manifest.run_id, points)])


def _group_bar(group: GroupStat) -> Bar:
    e = group.pass_hat_k["1"]
    return Bar(group.key, e.value, e.ci_low, e.ci_high, f"{fmt.rate(e.value)} ({e.tasks} tasks)")


def _diff_bar(group: PairedGroup) -> Bar:
    e = group.pass_hat_k["1"]
    return Bar(group.key, e.diff, e.ci_low, e.ci_high, f"{fmt.signed(e.diff)} ({e.tasks} tasks)")


def _actions_chart(report: RunReport) -> str:
    bars = [
        Bar(
            s.name,
            s.performed_rate,
            note=f"{s.performed}/{s.expected}, right seat {fmt.rate(s.right_seat_rate)}",
        )
        for s in report.actions
    ]
    return bar_chart("Reference actions performed", bars)


def _cost_chart(usage: Sequence[SeatUsage]) -> str:
    costs = [u.cost for u in usage if u.cost is not None]
    bars = [Bar(str(u.seat), u.cost, note=fmt.cost(u.cost, u.unpriced, u.simulations)) for u in usage]
    return bar_chart("Cost per seat (USD)", bars, hi=max(costs, default=0.0) or 1.0)


def _page(title: str, body: Sequence[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head>"
        f"<body><h1>{escape(title)}</h1>{''.join(body)}</body></html>\n"
    )


def _section(heading: str, *parts: str) -> str:
    return f"<section><h2>{escape(heading)}</h2>{''.join(parts)}</section>"


def _charts(svgs: Sequence[str]) -> str:
    return f'<div class="charts">{"".join(svgs)}</div>'


def _warnings(warnings: Sequence[str]) -> str:
    return "".join(f'<p class="warning">warning: {escape(w)}</p>' for w in warnings)


def _table(data: TableData) -> str:
    head = "".join(f"<th>{escape(column)}</th>" for column in data.columns)
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{_cell(cell)}</td>" if index < data.text_columns else f'<td class="num">{_cell(cell)}</td>'
            for index, cell in enumerate(row)
        )
        + "</tr>"
        for row in data.rows
    )
    return f"<table><caption>{escape(data.title)}</caption><tr>{head}</tr>{rows}</table>"


def _cell(text: str) -> str:
    return escape(text).replace("\n", "<br>")


def write_page(path: Path, page: str) -> None:
    """Write an HTML page; an unwritable path is a one-line `UserInputError`."""
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as error:
        raise UserInputError(f"{path}: cannot write: {error.strerror or error}") from None
