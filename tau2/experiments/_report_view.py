"""The experiment report on the terminal and as a self-contained HTML page: a pass^k table per arm, one line
per comparison with its verdict, the units that flip and where the difference comes from, what each arm
costs per seat, and the arms' cost–accuracy frontier. On the page every flip links to its transcripts in
both arms, kept in the page's viewer (the run report's, so model text is escaped as it is there)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Final

from rich.console import RenderableType

from tau2.experiments._report import SOURCES, ArmSummary, ExperimentComparison, ExperimentReport, Flip
from tau2.metrics import BOTH
from tau2.report import collateral, cost, fmt, tables
from tau2.report.factors import differ_line
from tau2.report.frontier import frontier_table, paid
from tau2.report.html import (
    _folded,
    _link_columns,
    _name_cell,
    _page_end,
    _page_start,
    _section,
    _stat,
    _table,
    _viewer,
    _warnings,
    frontier_section,
)
from tau2.report.robustness import noticed_lines, robustness_table
from tau2.report.tables import TableData
from tau2.report.terminal import line, rich_table
from tau2.report.transcripts import table_rows
from tau2.runs import RecordFile, Run, SimulationRecord

FLIPS_LISTED: Final = 10
"""Tasks listed per direction of flip on the terminal; the count says how many there are in all."""
SOURCE_ROWS: Final = 4
"""Groups per grouping shown on the terminal: those contributing most to the difference."""
EFFORT_MEASURES: Final = ("messages", "tool calls", "tool errors", "tokens", "cost")


def experiment_tables(report: ExperimentReport) -> list[RenderableType]:
    """What `tau2 experiment report` prints."""
    level = report.bootstrap.level
    rendered: list[RenderableType] = [line(_heading(report), "bold")]
    for arm in report.arms:
        rendered.append(line(_arm_label(arm), "bold"))
        rendered.append(rich_table(arm_pass_hat_k(arm, level, tables.headline_ks(list(arm.pass_hat_k)))))
        rendered += [line(text, "dim") for text in _missing_lines(arm)]
        rendered += [line(text) for text in _collateral_lines(arm)]
    rendered.append(rich_table(comparisons(report.comparisons, level)))
    for comparison in report.comparisons:
        rendered.append(line(comparison.verdict, "bold" if comparison.comparable else "bold yellow"))
        rendered.append(line(differ_line(comparison.factors, "arms"), "dim"))
        ks = tables.headline_ks(list(comparison.pass_hat_k))
        curve = tables.paired_pass_hat_k(
            comparison.pass_hat_k, level, comparison.baseline, comparison.arm, ks
        )
        if not curve.empty:
            rendered.append(rich_table(curve))
        rendered += [line(text) for text in flip_lines(comparison)]
        sources = sources_table(comparison, level, limit=SOURCE_ROWS)
        if not sources.empty:
            rendered.append(rich_table(sources))
    if report.robustness:
        rendered.append(rich_table(robustness_table(report.robustness, level)))
        rendered += [line(text, "dim") for text in noticed_lines(report.robustness)]
    rendered.append(rich_table(seat_effort(report.arms)))
    if paid(report.frontier):
        rendered.append(rich_table(frontier_table(report.frontier, level, "arm")))
    rendered.append(
        line("--json: every figure; --html FILE: the flipping tasks' transcripts in both arms", "dim")
    )
    return rendered


def _heading(report: ExperimentReport) -> str:
    names = ", ".join(arm.name for arm in report.arms)
    return f"Experiment {report.name} · baseline {report.baseline} · arms {names} · {report.path}"


def _arm_label(arm: ArmSummary) -> str:
    user = "" if arm.user is None else f" · user {arm.user}"
    persona = f" · persona {arm.persona_override}" if arm.persona_override else ""
    role = " (baseline)" if arm.baseline else ""
    return f"{arm.name}{role}: {arm.mode} · agent {arm.agent}{user}{persona}"


def arm_pass_hat_k(arm: ArmSummary, level: float, ks: list[str] | None = None) -> TableData:
    """One arm's pass^k with intervals (every k, or those in `ks`), with its bounds when trials are
    missing."""
    ks = list(arm.pass_hat_k) if ks is None else ks
    bounded = arm.missing.trials > 0
    rows = []
    for k in ks:
        e = arm.pass_hat_k[k]
        row = [k, fmt.rate(e.value), fmt.interval(e.ci_low, e.ci_high), fmt.count(e.tasks)]
        if bounded:
            b = arm.missing.bounds[k]
            row.append(f"{fmt.rate(b.low)} – {fmt.rate(b.high)}")
        rows.append(row)
    columns = [
        "k",
        "pass^k",
        f"{level:.0%} CI",
        "tasks",
        *(["if missing failed – passed"] if bounded else []),
    ]
    return TableData("pass^k", columns, rows)


def _missing_lines(arm: ArmSummary) -> list[str]:
    missing = arm.missing
    if not missing.trials:
        return []
    lines = [
        f"{arm.name}: {missing.trials:,} trials missing (infrastructure errors) in {missing.tasks:,} tasks; "
        "pass^k is over the valid trials, the bounds count the missing ones as failed or passed"
    ]
    if missing.all_missing:
        listed = ", ".join(fmt.short_id(task) for task in missing.all_missing[:FLIPS_LISTED])
        more = len(missing.all_missing) - FLIPS_LISTED
        lines.append(
            f"{arm.name}: no valid trial in {len(missing.all_missing):,} tasks: {listed}"
            + (f" and {more:,} more" if more > 0 else "")
        )
    return lines


def comparisons(items: Sequence[ExperimentComparison], level: float) -> TableData:
    """One line per arm against the baseline."""
    rows = [
        [
            f"{c.arm} − {c.baseline}",
            fmt.signed(c.delta_pass_hat_1),
            fmt.interval(*c.ci, True) if c.ci is not None else "",
            _p(c.p_value),
            _p(c.p_holm) if c.p_holm is not None else "",
            fmt.rate(c.mdd),
            fmt.count(c.flips_to_pass),
            fmt.count(c.flips_to_fail),
            fmt.count(c.incomplete),
            fmt.count(c.tasks),
            "yes" if c.comparable else "no",
            *(_statistic(s.value) for s in c.statistics),
        ]
        for c in items
    ]
    columns = [
        "arm − baseline",
        "Δ pass^1",
        f"{level:.0%} CI",
        "McNemar p",
        "Holm p",
        "MDD",
        "to pass",
        "to fail",
        "incomplete",
        "tasks",
        "can differ",
        *(s.label for s in (items[0].statistics if items else [])),
    ]
    arms = f"{len(items)} arm{'' if len(items) == 1 else 's'}"
    title = f"Against the baseline (paired on (task, trial); Holm p: McNemar's p corrected over the {arms})"
    return TableData(title, columns, rows)


def _statistic(value: float | None) -> str:
    """An experiment statistic's value: three significant digits, empty when it has none."""
    return "" if value is None else f"{value:.3g}"


def _p(value: float | None) -> str:
    if value is None:
        return ""
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def flip_lines(comparison: ExperimentComparison, limit: int = FLIPS_LISTED) -> list[str]:
    """The tasks that flip each way: a count, then at most `limit` tasks per direction, one a line."""
    text = []
    for to in ("pass", "fail"):
        units = [flip for flip in comparison.flips if flip.to == to]
        if not units:
            continue
        tasks = _by_task(units)
        text.append(f"flips to {to} in {comparison.arm}: {len(units):,} trials of {len(tasks):,} tasks")
        text += [f"  {fmt.short_id(task)} ({_trials(trials)})" for task, trials in tasks[:limit]]
        if len(tasks) > limit:
            text.append(f"  and {len(tasks) - limit:,} more tasks (--json or --html: all of them)")
    return text


def _by_task(flips: Sequence[Flip]) -> list[tuple[str, list[int]]]:
    grouped: dict[str, list[int]] = {}
    for flip in flips:
        grouped.setdefault(flip.task_id, []).append(flip.trial)
    return list(grouped.items())


def _trials(trials: list[int]) -> str:
    return ("trial " if len(trials) == 1 else "trials ") + ", ".join(str(t) for t in trials)


def sources_table(comparison: ExperimentComparison, level: float, limit: int | None = None) -> TableData:
    """Δpass^1 by intent, subtasks, persona, reference action and seat; with `limit`, only the groups of
    each grouping that contribute most to the difference."""
    rows = []
    for name in SOURCES:
        groups = comparison.sources.get(name, [])
        if len(groups) < 2 and name != "seat":
            continue
        shown = groups
        if limit is not None:
            shown = sorted(groups, key=lambda g: -abs(g.contribution or 0.0))[:limit]
        rows += [
            [
                name,
                g.key,
                fmt.count(g.tasks),
                fmt.rate(g.baseline),
                fmt.rate(g.arm),
                fmt.signed(g.delta),
                fmt.interval(*g.ci, True) if g.ci is not None else "",
                fmt.signed(g.contribution),
                _p(g.p_value),
                _p(g.p_holm),
            ]
            for g in shown
        ]
    title = f"Where {comparison.arm} − {comparison.baseline} comes from"
    if limit is not None:
        title += f" (the {limit} groups contributing most per grouping)"
    title += "; Holm p over each grouping's groups"
    columns = ["by", "group", "tasks", comparison.baseline, comparison.arm, "Δ pass^1", f"{level:.0%} CI"]
    return TableData(title, [*columns, "share of Δ", "McNemar p", "Holm p"], rows, text_columns=2)


def seat_effort(arms: Sequence[ArmSummary]) -> TableData:
    """Per arm and seat: the means per simulation, and the arm's turns per simulation on its episode line;
    a seat the arm has none of (the user of a solo arm) has no line."""
    rows = []
    for arm in arms:
        means = {(m.seat, m.measure): m.mean for m in arm.effort}
        for seat in ("agent", *(() if arm.user is None else ("user",)), BOTH):
            if seat == BOTH:
                values = [fmt.amount(means.get((BOTH, "turns")), "turns"), *([""] * len(EFFORT_MEASURES))]
            else:
                values = ["", *(fmt.amount(means.get((seat, m)), m) for m in EFFORT_MEASURES)]
            rows.append([arm.name, "episode" if seat == BOTH else seat, *values])
    columns = ["arm", "seat", "turns", *EFFORT_MEASURES]
    return TableData("Per seat, per valid simulation", columns, rows, text_columns=2)


def experiment_page(report: ExperimentReport, runs: dict[str, Run]) -> str:
    """The experiment's HTML page; every flipping (task, trial) links to its transcript in both arms."""
    level = report.bootstrap.level
    shown, index = _flip_records(report, runs)
    body = [
        f'<p class="config">{escape(_heading(report))}</p>',
        _warnings(report.warnings),
        *(_verdict(comparison) for comparison in report.comparisons),
        _section("Arms", *(_arm_section(arm, level) for arm in report.arms)),
        _section("Against the baseline", _table(comparisons(report.comparisons, level))),
        _section(
            "Robustness",
            _table(robustness_table(report.robustness, level)),
            _folded(
                "Where the agent noticed",
                *(f'<p class="note">{escape(text)}</p>' for text in noticed_lines(report.robustness, None)),
            ),
        ),
        *(_comparison_section(comparison, level, index) for comparison in report.comparisons),
        _section(
            "What each arm costs",
            _table(seat_effort(report.arms)),
            *(_table(_titled(tables.usage(arm.usage), arm.name)) for arm in report.arms),
            *(_table(_titled(cost.cost_table(arm.cost), arm.name)) for arm in report.arms),
        ),
        frontier_section(report.frontier, f"Cost and accuracy of the arms of {report.name}", level, "arm"),
    ]
    parts = [_page_start(f"tau2 experiment: {report.name}"), *body]
    if shown:
        records = [record for _, record in shown]
        rows = table_rows(records, [arm for arm, _ in shown])
        parts += _viewer(rows, records, runs=True, heading="Simulations of the tasks that flip")
    parts.append(_page_end(viewer=bool(shown)))
    return "".join(parts)


def _arm_section(arm: ArmSummary, level: float) -> str:
    notes = "".join(f'<p class="note">{escape(text)}</p>' for text in _missing_lines(arm))
    damage = "".join(f'<p class="config">{escape(text)}</p>' for text in _collateral_lines(arm))
    listed = collateral.simulations(arm.collateral, f"{arm.name}: simulations with collateral damage")
    return (
        f"<h3>{escape(_arm_label(arm))}</h3>{_table(arm_pass_hat_k(arm, level))}{notes}{damage}"
        f"{_folded(listed.title, _table(listed))}"
    )


def _collateral_lines(arm: ArmSummary) -> list[str]:
    """The arm's collateral rate in one line, when any of its simulations was checked for it."""
    text = collateral.rate_line(arm.collateral)
    return [] if text is None else [f"{arm.name}: {text}"]


def _titled(data: TableData, arm: str) -> TableData:
    return TableData(f"{data.title}: {arm}", data.columns, data.rows, data.text_columns)


def _verdict(comparison: ExperimentComparison) -> str:
    e = comparison
    stats = [
        _stat("Δ pass^1", fmt.signed(e.delta_pass_hat_1), fmt.interval(*e.ci, True) if e.ci else "", e.arm),
        _stat("McNemar p", _p(e.p_value), "", f"{e.flips_to_pass:,} to pass, {e.flips_to_fail:,} to fail"),
        _stat("Holm p", _p(e.p_holm), "", f"corrected over {e.family} arm{'' if e.family == 1 else 's'}"),
        _stat("MDD", fmt.rate(e.mdd), "", f"at {e.power:.0%} power"),
        *(_stat(s.label, _statistic(s.value), "", "") for s in e.statistics),
    ]
    kind = "verdict" if e.comparable else "verdict warning"
    differ = f'<p class="config">{escape(differ_line(e.factors, "arms"))}</p>'
    return f'<p class="{kind}"><b>{escape(e.verdict)}</b></p>{differ}' + (
        f'<div class="headline">{"".join(stats)}</div>' if e.comparable else ""
    )


Index = dict[tuple[str, str, int], int]
"""(arm, task id, trial) → the position of that simulation in the page's viewer."""


def _flip_records(
    report: ExperimentReport, runs: dict[str, Run]
) -> tuple[list[tuple[str, SimulationRecord]], Index]:
    """The simulations of every flipping unit in the baseline and in the arm, each once, and where each is."""
    wanted = {
        (arm, flip.task_id, flip.trial)
        for comparison in report.comparisons
        for flip in comparison.flips
        for arm in (report.baseline, comparison.arm)
    }
    shown: list[tuple[str, SimulationRecord]] = []
    for arm, run in runs.items():
        units = {(task_id, trial) for named, task_id, trial in wanted if named == arm}
        shown += [(arm, r) for r in sorted(_units_of(run, units), key=lambda r: (r.task_id, r.trial))]
    index = {(arm, record.task_id, record.trial): number for number, (arm, record) in enumerate(shown)}
    return shown, index


def _units_of(run: Run, units: set[tuple[str, int]]) -> Sequence[SimulationRecord]:
    """The run's records of these (task, trial) units; a run read from disk picks them from its index and
    reads only those."""
    records = run.records
    if isinstance(records, RecordFile):
        return records.where(lambda line: (line.task_id, line.trial) in units)
    return [record for record in records if (record.task_id, record.trial) in units]


def _comparison_section(comparison: ExperimentComparison, level: float, index: Index) -> str:
    c = comparison
    pass_hat_k = tables.paired_pass_hat_k(c.pass_hat_k, level, c.baseline, c.arm)
    return _section(
        f"{c.arm} against {c.baseline}",
        _table(pass_hat_k),
        _table(sources_table(c, level)),
        _table(tables.action_diffs(c.actions, level)),
        _table(tables.effort(c.effort, level, c.baseline, c.arm)),
        _flip_table(c, index),
        _folded(
            "Settings",
            f'<p class="note">Differing settings: {escape(", ".join(c.settings) or "none")}.</p>',
        ),
    )


def _flip_table(comparison: ExperimentComparison, index: Index) -> str:
    if not comparison.flips:
        return ""
    arms = (comparison.baseline, comparison.arm)
    head = "".join(f"<th>{escape(name)}</th>" for name in ("to", "task", "trial", "seed", *arms))
    rows = "".join(
        f"<tr><td>{flip.to}</td><td>{_name_cell(fmt.short_id(flip.task_id))}</td><td>{flip.trial}</td>"
        f"<td>{flip.seed}</td>{_link(index, comparison.baseline, flip, _other(flip.to))}"
        f"{_link(index, comparison.arm, flip, flip.to)}</tr>"
        for flip in sorted(comparison.flips, key=lambda f: (f.to, f.task_id, f.trial))
    )
    caption = (
        f"Trials that flip: {comparison.flips_to_pass:,} to pass, {comparison.flips_to_fail:,} to fail "
        "(each link opens that simulation's transcript below)"
    )
    widths = _link_columns("short", "", "short", "seed", "run", "run")
    return f'<table class="links"><caption>{escape(caption)}</caption>{widths}<tr>{head}</tr>{rows}</table>'


def _other(outcome: str) -> str:
    return "fail" if outcome == "pass" else "pass"


def _link(index: Index, arm: str, flip: Flip, outcome: str) -> str:
    """A cell linking to the unit's simulation in `arm`, which ended in `outcome`."""
    number = index.get((arm, flip.task_id, flip.trial))
    if number is None:
        return "<td>none</td>"
    return f'<td><a href="#sim-{number + 1}" class="badge {outcome}">{escape(arm)}: {outcome}</a></td>'
