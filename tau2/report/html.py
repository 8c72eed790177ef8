"""Self-contained HTML pages: inline CSS, inline SVG plots, and the transcript viewer's own inline script
and data. Nothing is fetched, so a page works offline and can be mailed as one file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import Any

from tau2.errors import UserInputError
from tau2.metrics import BOTH, FrontierPoint, GroupStat, PairedGroup, pair_key
from tau2.report import audit, collateral, cost, fmt, judges, plots, tables
from tau2.report.factors import differ_line, side_labels
from tau2.report.frontier import frontier_figure, frontier_table, paid
from tau2.report.robustness import noticed_lines, robustness_table
from tau2.report.schema import ComparisonReport, RunReport
from tau2.report.tables import TableData
from tau2.report.transcripts import CHUNK, ROW_FIELDS, chunks, report_rows, script_json, table_rows
from tau2.runs import MANIFEST_FILE, RESULTS_FILE, RecordFile, SimulationRecord

PLOTTED_BREAKDOWNS = ("intent", "fault", "resolution", "subtasks", "persona")
"""Breakdowns drawn as plots (the others are tables only); one with a single group is not drawn."""


def run_page(report: RunReport, records: Sequence[SimulationRecord], extra: Sequence[TableData] = ()) -> str:
    """The HTML report of one run as one string (`run_page_parts` joined)."""
    return "".join(run_page_parts(report, records, extra))


def run_page_parts(
    report: RunReport, records: Iterable[SimulationRecord], extra: Sequence[TableData] = ()
) -> Iterator[str]:
    """The HTML report of one run, in parts to write one after another: headline, plots, the simulations
    viewer, then every table; `extra` are tables about data from outside tools (an imported run's recorded
    rewards), shown after the headline. The viewer's table rows come from the report; the transcripts are
    read from `records` one block at a time, so the page is never held whole."""
    m = report.manifest
    profiles = [] if report.robustness is None else [report.robustness]
    before = [
        f'<p class="config">{escape(tables.config_line(report))}</p>',
        f'<p class="config">{escape(tables.totals_line(report))}</p>',
        *(
            f'<p class="config">{escape(text)}</p>'
            for text in (
                judges.cost_line(report.usage, report.judges),
                judges.agreement_line(report.judges),
                cost.cost_line(report.cost, report.bootstrap.level),
                cost.saving_line(report.cost),
            )
            if text is not None
        ),
        _warnings(report.warnings),
        _run_headline(report),
        _collateral(report),
        _table(tables.missing(report.missing)),
        _section("Recorded elsewhere", *(_table(table) for table in extra)),
        _section(
            "Robustness",
            _table(robustness_table(profiles, report.bootstrap.level)),
            _folded(
                "Where the agent noticed",
                *(f'<p class="note">{escape(text)}</p>' for text in noticed_lines(profiles, None)),
            ),
        ),
        _section(
            "Simulated-user audit and failures by cause",
            _table(audit.user_checks(report.audit)),
            _table(audit.attribution(report.audit)),
            _folded("Failed simulations", _table(audit.failures(report.audit))),
            *(f'<p class="note">{escape(note)}</p>' for note in audit.notes(report.audit)),
        ),
        _section(
            "Judge agreement",
            _table(judges.costs(report.judges)),
            _folded("Assertions the judges disagree on", _table(judges.disagreements(report.judges))),
        ),
        _section("Plots", _run_plots(report)),
    ]
    after = [
        _section(
            "Breakdowns",
            *(_table(tables.breakdown(name, groups)) for name, groups in report.breakdowns.items()),
        ),
        _section(
            "Actions, endings and cost",
            _table(tables.terminations(report.termination_outcomes, report.totals.excluded)),
            _table(tables.actions(report.actions)),
            _table(tables.checks(report.checks)),
            _table(tables.usage(report.usage)),
            _table(cost.cost_table(report.cost)),
        ),
        _folded("Tasks", _table(tables.tasks(report.tasks))),
        _folded("Run configuration", _table(tables.configuration(report)), _table(tables.summary(report))),
    ]
    title = f"tau2 report: {m.run_id} ({m.mode_label()}, {m.agent.label()})"
    yield _page_start(title)
    yield from before
    yield from _viewer(report_rows(report.simulations), records)
    yield from after
    yield _page_end(viewer=True)


def viewer_page(title: str, records: Sequence[SimulationRecord], open_first: bool) -> str:
    """Only the simulations viewer, for `tau2 view --html`, as one string."""
    return "".join(viewer_page_parts(title, records, open_first))


def viewer_page_parts(title: str, records: Sequence[SimulationRecord], open_first: bool) -> Iterator[str]:
    """Only the simulations viewer, for `tau2 view --html`, in parts; the first simulation open when asked.
    `records` is read twice (the table's rows, then the transcripts), one record at a time."""
    yield _page_start(title)
    yield from _viewer(table_rows(records), records, open_index=0 if open_first and records else None)
    yield _page_end(viewer=True)


def comparison_page(
    report: ComparisonReport,
    records_a: Sequence[SimulationRecord] = (),
    records_b: Sequence[SimulationRecord] = (),
) -> str:
    """The HTML page of a paired comparison as one string (`comparison_page_parts` joined)."""
    return "".join(comparison_page_parts(report, records_a, records_b))


def comparison_page_parts(
    report: ComparisonReport,
    records_a: Sequence[SimulationRecord] = (),
    records_b: Sequence[SimulationRecord] = (),
) -> Iterator[str]:
    """The HTML page of a paired comparison, in parts; legends name the factor that differs. Given the
    runs' records, every task that flips links to its transcripts in run A and in run B, kept in the
    page's viewer (read from the records one block at a time)."""
    level = report.bootstrap.level
    a, b = side_labels(report.factors, report.a.run_id, report.b.run_id)
    legend = (
        f'<p class="config"><span class="legend-a">A = {escape(fmt.shortened(a))}</span> '
        f"({escape(report.a.run_id)}, {escape(report.a.path)}) · "
        f'<span class="legend-b">B = {escape(fmt.shortened(b))}</span> '
        f"({escape(report.b.run_id)}, {escape(report.b.path)}) · paired by {report.pair_by.value} on "
        f"{fmt.count(report.shared)} shared tasks; differences are B − A</p>"
        f'<p class="config">{escape(differ_line(report.factors))}</p>'
    )
    yield _page_start(f"tau2 compare: {report.title}")
    yield from [
        legend,
        _warnings(report.warnings),
        _comparison_headline(report),
        _paired_collateral(report, a, b),
        _table(tables.paired_missing(report.missing, a, b)),
        _section("Plots", _comparison_plots(report, a, b)),
        _section(
            "pass^k and what it costs",
            _table(tables.paired_pass_hat_k(report.pass_hat_k, level, a, b)),
            _table(tables.effort(report.effort, level, a, b, tables.absent_seats(report))),
            _table(tables.paired_terminations(report.terminations, level, a, b)),
        ),
        _section(
            "Breakdowns",
            *(_table(tables.paired_breakdown(name, groups)) for name, groups in report.breakdowns.items()),
        ),
        _section("Reference actions", _table(tables.action_diffs(report.actions, level))),
        frontier_section(report.frontier, f"Cost and accuracy: {a} and {b}", level),
    ]
    listed = tables.flips(report.flips, listed=True)
    viewer = not listed.empty and bool(records_a or records_b)  # only then is there a viewer to script
    if viewer:
        yield from _flipping(report, listed, records_a, records_b)
    else:
        yield _section("Tasks that flip", _table(listed))
    yield _folded("Runs and pairing", _table(tables.run_refs(report)), _table(tables.pairing(report)))
    yield _page_end(viewer=viewer)


def _flipping(
    report: ComparisonReport,
    listed: TableData,
    records_a: Sequence[SimulationRecord],
    records_b: Sequence[SimulationRecord],
) -> Iterator[str]:
    """The tasks that flip (`listed`, one row each), each with links to its simulations in A and in B, and
    the viewer holding those simulations."""
    flipping = {key for sets in report.flips.values() for key in (*sets.gained, *sets.lost)}
    sides = [
        (side, flipping_records(records, lambda task_id: pair_key(task_id, report.pair_by) in flipping))
        for side, records in (("A", records_a), ("B", records_b))
    ]
    links: dict[tuple[str, str], list[str]] = {}
    rows: list[list[Any]] = []
    for side, records in sides:  # one record at a time: the rows and links keep none
        for record in records:
            outcome = "excluded" if record.excluded else "pass" if record.success else "fail"
            links.setdefault((side, pair_key(record.task_id, report.pair_by)), []).append(
                f'<a href="#sim-{len(rows) + 1}" class="badge {outcome}">trial {record.trial}: {outcome}</a>'
            )
            rows += table_rows([record], [side])
    columns = (*listed.columns, "run A", "run B")
    head = "".join(f"<th>{escape(column)}</th>" for column in columns)
    flips = "".join(
        f"<tr><td>{_cell(name)}</td><td>{direction}</td><td>{_name_cell(fmt.short_id(key))}</td>"
        + "".join(f"<td>{' '.join(links.get((side, key), [])) or 'none'}</td>" for side in ("A", "B"))
        + "</tr>"
        for name, sets in report.flips.items()
        for direction, keys in (("gained", sets.gained), ("lost", sets.lost))
        for key in keys
    )
    widths = _link_columns("short", "short", "", "run", "run")
    caption = f"<caption>{escape(listed.title)}</caption>"
    table = f'<table class="links">{caption}{widths}<tr>{head}</tr>{flips}</table>'
    note = '<p class="note">Each link opens that simulation\'s transcript below.</p>'
    yield _section("Tasks that flip", note, table)
    yield from _viewer(
        rows,
        (record for _, records in sides for record in records),
        heading="Simulations of the tasks that flip",
        runs=True,
    )


def flipping_records(
    records: Sequence[SimulationRecord], keep: Callable[[str], bool]
) -> Sequence[SimulationRecord]:
    """The records of the tasks `keep` accepts, by task and trial: for a run read from disk, chosen from
    its index and read again when iterated rather than held."""
    if isinstance(records, RecordFile):
        lines = sorted(
            (line for line in records.lines if keep(line.task_id)),
            key=lambda line: (line.task_id, line.trial),
        )
        return RecordFile(records.path, lines)
    return sorted((record for record in records if keep(record.task_id)), key=lambda r: (r.task_id, r.trial))


def _run_headline(report: RunReport) -> str:
    stats = [
        _stat(f"pass^{k}", fmt.rate(e.value), fmt.interval(e.ci_low, e.ci_high), f"{e.tasks:,} tasks")
        for k, e in report.pass_hat_k.items()
    ]
    failed = report.totals.valid - report.totals.successes
    link = (
        f'<a href="#simulations" data-outcome="fail">{failed:,} failed simulations: '
        "open their transcripts</a>"
        if failed
        else "no failed simulations"
    )
    return f'<div class="headline">{"".join(stats)}</div><p>{link}</p>'


def _collateral(report: RunReport) -> str:
    """The collateral rate under the headline, the seats and tools that wrote it, and (folded) every
    simulation with collateral damage or missing writes."""
    text = collateral.rate_line(report.collateral)
    if text is None:
        return ""
    listed = collateral.simulations(report.collateral)
    return (
        f'<p class="config">{escape(text)}</p>'
        + _table(collateral.calls(report.collateral))
        + _folded(listed.title, _table(listed))
    )


def _paired_collateral(report: ComparisonReport, a: str, b: str) -> str:
    """Both runs' collateral rates under the headline and (folded) each run's damaged simulations."""
    text = collateral.paired_line(report.collateral, a, b)
    if text is None:
        return ""
    listed = [
        collateral.simulations(report.collateral.get(side), f"{label}: simulations with collateral damage")
        for side, label in (("a", a), ("b", b))
    ]
    return f'<p class="config">{escape(text)}</p>' + "".join(_folded(t.title, _table(t)) for t in listed)


def _comparison_headline(report: ComparisonReport) -> str:
    first = report.pass_hat_k.get("1")
    stats = []
    if first is not None:
        stats.append(
            _stat(
                "Δ pass^1",
                fmt.signed(first.diff),
                fmt.interval(first.ci_low, first.ci_high, True),
                f"{fmt.rate(first.a)} → {fmt.rate(first.b)}",
            )
        )
    for m in report.effort:
        if m.measure in ("turns", "tokens", "cost") and m.tasks and (m.a or m.b) and m.seat == BOTH:
            stats.append(_stat(f"Δ {m.measure}", fmt.amount(m.diff, m.measure, True), "", "per simulation"))
    for m in report.effort:
        if m.seat != BOTH and m.measure in ("tokens", "cost") and m.tasks and (m.a or m.b):
            label = f"Δ {m.seat} {m.measure}"
            stats.append(_stat(label, fmt.amount(m.diff, m.measure, True), "", "per simulation"))
    return f'<div class="headline">{"".join(stats)}</div>'


def _stat(label: str, value: str, ci: str, note: str) -> str:
    return (
        f'<div class="stat"><div class="label">{escape(label)}</div><div class="value">{escape(value)}</div>'
        f'<div class="ci">{escape(ci)}</div><div class="label">{escape(note)}</div></div>'
    )


def _run_plots(report: RunReport) -> str:
    if not plots.available():
        return plots.fallback()
    level = report.bootstrap.level
    ks = [int(k) for k in report.pass_hat_k]
    values = list(report.pass_hat_k.values())
    curve = plots.Line(
        report.manifest.run_id,
        ks,
        [e.value for e in values],
        [e.ci_low for e in values],
        [e.ci_high for e in values],
        plots.SIDE_COLORS[0],
    )
    charts = [plots.lines(f"pass^k with {level:.0%} intervals", [curve], axis="pass^k")]
    charts += [
        plots.bars(
            f"pass^1 by {name}", [_group_bar(g) for g in groups], axis=f"pass^1 ({level:.0%} interval)"
        )
        for name, groups in report.breakdowns.items()
        if name in PLOTTED_BREAKDOWNS and len(groups) > 1
    ]
    charts.append(
        plots.stacked(
            "Terminations × outcome",
            [(reason, [c["pass"], c["fail"]]) for reason, c in report.termination_outcomes.items()],
            [("pass", plots.PASS_FAIL[0]), ("fail", plots.PASS_FAIL[1])],
        )
    )
    actions = sorted(report.actions, key=lambda s: (s.side.value, s.name))
    charts.append(
        plots.bars(
            "Reference actions performed, by seat",
            [
                plots.Bar(
                    s.name,
                    s.performed_rate,
                    color=plots.SEAT_COLORS[s.side.value],
                    note=f"{s.performed:,}/{s.expected:,}",
                )
                for s in actions
            ],
            axis="share of expected occurrences performed",
            legend=_seat_legend({s.side.value for s in actions}),
        )
    )
    priced = [u for u in report.usage if u.calls and u.cost is not None]
    charts.append(
        plots.bars(
            "Cost per simulation by seat (USD)",
            [
                plots.Bar(
                    str(u.seat),
                    u.cost / u.simulations,
                    color=plots.SEAT_COLORS.get(str(u.seat), plots.SEAT_COLORS[BOTH]),
                    note=fmt.usd(u.cost / u.simulations),
                )
                for u in priced
                if u.cost is not None
            ],
            axis="USD per simulation",
            usd=True,
        )
        if any(u.cost for u in priced)
        else ""
    )
    return _plots(charts)


def _comparison_plots(report: ComparisonReport, a: str, b: str) -> str:
    if not plots.available():
        return plots.fallback()
    level = report.bootstrap.level
    ks = [int(k) for k in report.pass_hat_k]
    e = list(report.pass_hat_k.values())
    curves = [
        plots.Line(
            f"A: {a}", ks, [x.a for x in e], [x.a_low for x in e], [x.a_high for x in e], plots.SIDE_COLORS[0]
        ),
        plots.Line(
            f"B: {b}", ks, [x.b for x in e], [x.b_low for x in e], [x.b_high for x in e], plots.SIDE_COLORS[1]
        ),
    ]
    diff = plots.Line(
        f"{b} − {a}", ks, [x.diff for x in e], [x.ci_low for x in e], [x.ci_high for x in e], "#444444"
    )
    diff_bars = [
        plots.Bar(f"pass^{k}", x.diff, x.ci_low, x.ci_high, color="#444444", note=fmt.signed(x.diff))
        for k, x in zip(ks, e, strict=True)
    ]
    counts = [m for m in report.effort if m.measure in ("turns", "messages", "tool calls", "tool errors")]
    effort = [
        plots.Bar(
            f"{m.seat} {m.measure}",
            m.diff,
            m.ci_low,
            m.ci_high,
            color=plots.SEAT_COLORS[m.seat],
            note=fmt.amount(m.diff, m.measure, True),
        )
        for m in counts
        if m.tasks and (m.a or m.b)
    ]
    actions = [
        plots.Bar(
            d.name,
            d.diff,
            d.ci_low,
            d.ci_high,
            color=plots.SEAT_COLORS[d.side.value],
            note=fmt.signed(d.diff),
        )
        for d in report.actions
    ]
    charts = [
        plots.lines(f"pass^k of {a} and {b} ({level:.0%} intervals)", curves, axis="pass^k"),
        plots.lines(
            f"pass^k: {b} − {a} ({level:.0%} paired interval)", [diff], axis="difference", centred=True
        )
        or plots.bars(
            f"pass^k: {b} − {a} ({level:.0%} paired interval)", diff_bars, axis="difference", centred=True
        ),
        plots.bars(
            f"Turns, messages, tool calls and errors per simulation: {b} − {a}",
            effort,
            axis="difference per simulation",
            centred=True,
            legend=_seat_legend({m.seat for m in counts}),
        ),
        plots.bars(
            f"Reference actions performed: {b} − {a}, by seat",
            actions,
            axis=f"difference in share performed ({level:.0%} paired interval)",
            centred=True,
            legend=_seat_legend({d.side.value for d in report.actions}),
        ),
    ]
    charts += [
        plots.bars(
            f"Δ pass^1 by {name}: {b} − {a}", [_diff_bar(g) for g in groups], axis="difference", centred=True
        )
        for name, groups in report.breakdowns.items()
        if name in PLOTTED_BREAKDOWNS and len(groups) > 1
    ]
    return _plots(charts)


def frontier_section(points: Sequence[FrontierPoint], title: str, level: float, what: str = "run") -> str:
    """The cost–accuracy frontier of the runs, drawn and as a table (nothing when no run paid for a model
    call)."""
    if not paid(points):
        return ""
    note = (
        f'<p class="note">Each point is one {what}: pass^1 against what one simulation cost (every model '
        f"call made for it, the judges' included). Filled points are on the Pareto frontier: no other {what} "
        "is as cheap and as accurate while better on one.</p>"
    )
    figure = frontier_figure(points, title, level)
    return _section("Cost and accuracy", note, figure, _table(frontier_table(points, level, what)))


def _seat_legend(seats: set[str]) -> list[tuple[str, str]]:
    names = {"agent": "agent seat (CRM tools)", "user": "user seat (phone tools)", BOTH: "whole episode"}
    return [(names[seat], color) for seat, color in plots.SEAT_COLORS.items() if seat in seats]


def _group_bar(group: GroupStat) -> plots.Bar:
    e = group.pass_hat_k["1"]
    return plots.Bar(group.key, e.value, e.ci_low, e.ci_high, note=f"{fmt.rate(e.value)} ({e.tasks:,} tasks)")


def _diff_bar(group: PairedGroup) -> plots.Bar:
    e = group.pass_hat_k["1"]
    color = plots.SIDE_COLORS[1] if (e.diff or 0) < 0 else plots.SIDE_COLORS[0]
    return plots.Bar(
        group.key, e.diff, e.ci_low, e.ci_high, color=color, note=f"{fmt.signed(e.diff)} ({e.tasks:,} tasks)"
    )


def _viewer(
    rows: list[list[Any]],
    records: Iterable[SimulationRecord],
    open_index: int | None = None,
    *,
    runs: bool = False,
    heading: str = "Simulations",
) -> Iterator[str]:
    """The simulations table and transcript panel, with the rows (`ROW_FIELDS` order) inline and the
    transcripts of `records` (the same simulations, in the same order) compressed block by block; `runs`
    shows the column naming each simulation's run."""
    data = {
        "fields": list(ROW_FIELDS),
        "rows": rows,
        "chunk": CHUNK,
        "open": open_index,
        "long": fmt.LONG_NAME,
    }
    columns = [
        ("#", "index"),
        *([("run", "run")] if runs else []),
        ("outcome", "outcome"),
        ("task (intent, faults)", "task"),
        ("persona", "persona"),
        ("trial", "trial"),
        ("termination", "termination"),
        ("turns", "steps"),
        ("tool errors", "tool_errors"),
        ("tokens", "tokens"),
        ("cost", "cost"),
    ]
    head = "".join(f'<th data-sort="{key}">{escape(name)}</th>' for name, key in columns)
    yield (
        f'<section id="simulations"><h2>{escape(heading)}</h2>'
        '<p class="note">Click a row to read its transcript; hover a row for the full task id.</p>'
        '<div class="controls"><input id="sim-filter" type="search" placeholder="filter: task, fault, '
        'persona, termination" aria-label="filter simulations">'
        '<select id="sim-outcome" aria-label="outcome"><option value="all">all outcomes</option>'
        '<option value="fail">failed</option><option value="pass">passed</option>'
        '<option value="excluded">excluded</option></select>'
        '<select id="sim-termination" aria-label="termination"><option value="all">all terminations</option>'
        '</select><span id="sim-count" class="note"></span></div>'
        '<div id="transcript" hidden></div>'
        f'<div class="table-box"><table id="sim-table"><thead><tr>{head}</tr></thead>'
        '<tbody id="sim-body"></tbody></table></div>'
        '<button id="sim-more" type="button" hidden>show more</button></section>'
        f'<script type="application/json" id="tau2-rows">{script_json(data)}</script>'
    )
    for number, block in enumerate(chunks(records)):
        yield f'<script type="application/gzip-base64" id="tau2-t-{number}">{block}</script>'


@cache
def _asset(name: str) -> str:
    return files("tau2.report").joinpath("assets", name).read_text(encoding="utf-8")


def _page_start(title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(fmt.shortened(title))}</title><style>{_asset('report.css')}</style></head>"
        f"<body><h1>{escape(fmt.shortened(title))}</h1>"
    )


def _page_end(viewer: bool) -> str:
    script = f"<script>{_asset('viewer.js')}</script>" if viewer else ""
    return f"{script}</body></html>\n"


def _section(heading: str, *parts: str) -> str:
    content = "".join(parts)
    return f"<section><h2>{escape(heading)}</h2>{content}</section>" if content else ""


def _folded(heading: str, *parts: str) -> str:
    content = "".join(parts)
    return f"<details><summary><b>{escape(heading)}</b></summary>{content}</details>" if content else ""


def _plots(svgs: Sequence[str]) -> str:
    return f'<div class="plots">{"".join(svgs)}</div>'


def _warnings(warnings: Sequence[str]) -> str:
    return "".join(f'<p class="warning">warning: {escape(w)}</p>' for w in warnings)


def _table(data: TableData) -> str:
    if data.empty:
        return ""
    head = "".join(f"<th>{escape(column)}</th>" for column in data.columns)
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{_name_cell(cell)}</td>"
            if index == 0
            else f"<td>{_cell(cell)}</td>"
            if index < data.text_columns
            else f'<td class="num">{_cell(cell)}</td>'
            for index, cell in enumerate(row)
        )
        + "</tr>"
        for row in data.rows
    )
    return _boxed(f"<table><caption>{escape(data.title)}</caption><tr>{head}</tr>{rows}</table>")


def _boxed(table: str) -> str:
    """A table in its own box, which scrolls sideways when the table is wider than the page."""
    return f'<div class="table-box">{table}</div>'


def _link_columns(*classes: str) -> str:
    """The column widths of a table of transcript links (`table.links`), one CSS class per column; an empty
    class leaves that column the room the others leave."""
    return "<colgroup>" + "".join(f'<col class="{c}">' if c else "<col>" for c in classes) + "</colgroup>"


def _cell(text: str) -> str:
    """A table cell's text; a long name is shown shortened, the whole of it one click away."""
    if len(text) <= fmt.LONG_NAME:
        return _lines(text)
    return (
        f'<details class="long"><summary>{_lines(fmt.shortened(text))} '
        f'<span class="note">({len(text):,} characters)</span></summary>'
        f'<div class="whole">{_lines(text)}</div></details>'
    )


def _lines(text: str) -> str:
    return escape(text).replace("\n", "<br>")


def _name_cell(name: str) -> str:
    """A row's name (a task id, a group) as `_cell` shows it, with a place to wrap after each `|` and `]` (the
    joints of a composed task's id, which browsers would otherwise keep on one line however long)."""
    return _cell(name).replace("|", "|<wbr>").replace("]", "]<wbr>")


def write_page(path: Path, page: str | Iterable[str]) -> None:
    """Write an HTML page, given whole or in parts (written one after another); an unwritable path, or a
    run directory's own file, is a one-line `UserInputError` (a report never overwrites its data)."""
    in_run = (path.parent / MANIFEST_FILE).is_file()
    if in_run and (path.name in (MANIFEST_FILE, RESULTS_FILE) or (path.exists() and path.suffix != ".html")):
        raise UserInputError(f"{path}: is a file of the run in {path.parent}; choose another --html path")
    try:
        with path.open("w", encoding="utf-8") as file:
            file.writelines([page] if isinstance(page, str) else page)
    except OSError as error:  # the command line reports it by kind (bad path or full disk) and path
        raise OSError(error.errno, error.strerror, str(path)) from None
