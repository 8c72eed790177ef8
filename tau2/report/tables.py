"""The tables of reports as plain rows of text, rendered by both the terminal and the HTML page. A table
with no rows is never shown (`TableData.empty`)."""

from __future__ import annotations

from dataclasses import dataclass

from tau2.episode import TerminationReason
from tau2.metrics import (
    ActionDiff,
    ActionStat,
    CheckStat,
    Estimate,
    FlipSets,
    GroupStat,
    MissingSummary,
    PairedEstimate,
    PairedGroup,
    PairedMean,
    SeatUsage,
    TaskOutcome,
)
from tau2.metrics.usage import JUDGE
from tau2.report import fmt
from tau2.report.schema import ComparisonReport, RunReport
from tau2.world import Side


@dataclass(frozen=True)
class TableData:
    """A titled table; the first `text_columns` columns are text, the others numbers."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    text_columns: int = 1

    @property
    def empty(self) -> bool:
        """No rows: the section is left out rather than printed as an empty frame."""
        return not self.rows


def configuration(report: RunReport) -> TableData:
    """The run's manifest, one field per row."""
    m = report.manifest
    rows = [
        ["run", m.run_id],
        ["directory", report.path],
        ["created", m.created_at.isoformat()],
        ["domain", m.domain],
        ["suite", f"{m.suite_path} ({m.suite_hash[:12]})"],
        ["mode", m.mode_label()],
        ["agent", m.agent.label()],
        ["user", "none" if m.user is None else m.user.label()],
        ["persona override", m.config.persona or "none (per-task personas)"],
        ["policy variant", m.episode.policy_variant],
        ["retrieval", "none" if m.episode.retrieval is None else m.episode.retrieval.label()],
        ["trials", fmt.count(m.trials)],
        ["seed", str(m.seed)],
        ["max steps / errors", f"{m.episode.max_steps} / {m.episode.max_errors}"],
        ["reward basis", _basis_source(m.reward_basis_source)],
        ["judge", "none" if m.config.judge is None else m.config.judge.name],
        *(["further judge", judge.name] for judge in m.config.extra_judges),
        *([["regraded from", f"{r.run_id} ({r.path})"]] if (r := m.regraded_from) is not None else []),
        ["tasks planned", fmt.count(len(m.task_ids))],
        *([f"version {key}", value] for key, value in sorted(m.versions.items())),
        *([f"hash {key}", value] for key, value in sorted(m.hashes.items())),
    ]
    return TableData("Run configuration", ["field", "value"], rows, text_columns=2)


def config_line(report: RunReport) -> str:
    """The configuration that matters for reading the numbers, in one line."""
    m = report.manifest
    user = "" if m.user is None else f" · user {m.user.label()}"
    persona = f" · persona {m.config.persona}" if m.config.persona else ""
    retrieval = f" · retrieval {m.episode.retrieval.label()}" if m.episode.retrieval else ""
    return (
        f"{m.run_id} · {m.domain} {m.mode_label()} · agent {m.agent.label()}{user}{persona}{retrieval} · "
        f"{fmt.count(len(m.task_ids))} tasks × {fmt.count(m.trials)} trials · seed {m.seed}"
    )


def totals_line(report: RunReport) -> str:
    """Counts, flips and the seats' tokens and cost in one line."""
    t, flips = report.totals, report.flips
    parts = [
        f"{fmt.count(t.simulations)}/{fmt.count(t.expected)} simulations",
        f"{fmt.count(t.successes)} passed",
        f"{fmt.count(t.valid - t.successes)} failed",
    ]
    if t.excluded:
        parts.append(f"{fmt.count(t.excluded)} excluded")
    if flips.rate is not None:
        parts.append(f"flip rate {fmt.rate(flips.rate)}")
    parts.append(f"{fmt.count(t.tool_errors)} tool errors")
    parts += _reply_faults(report.usage)
    retrieval = report.retrieval
    if retrieval is not None and retrieval.recall is not None:
        parts.append(f"recall@{retrieval.k} {fmt.rate(retrieval.recall)}")
    seats = [u for u in report.usage if u.seat != JUDGE]  # the judges' cost has a line of its own
    tokens = sum(u.prompt_tokens + u.completion_tokens for u in seats)
    if tokens:
        parts.append(f"{fmt.count(tokens)} tokens")
    priced = [u.cost for u in seats if u.calls]
    if priced:
        known = None not in priced
        parts.append(f"cost {fmt.cost(sum(c or 0.0 for c in priced) if known else None)}")
    cached = sum(u.cached_calls for u in report.usage)
    if cached:
        saved = fmt.usd(sum(u.cached_cost for u in report.usage))
        parts.append(f"{fmt.count(cached)} model answers from the cache ({saved} saved)")
    return fmt.SEPARATOR.join(parts)


def _reply_faults(ledger: list[SeatUsage]) -> list[str]:
    """Model replies cut off at the token cap and format failures, per seat, when there are any."""
    truncated = [f"{u.seat} {fmt.count(u.truncated)}" for u in ledger if u.truncated]
    failures = [f"{u.seat} {fmt.count(u.format_failures)}" for u in ledger if u.format_failures]
    parts = [f"replies cut at the token cap: {', '.join(truncated)}"] if truncated else []
    return parts + ([f"format failures: {', '.join(failures)}"] if failures else [])


def _basis_source(source: str | None) -> str:
    if source == "implied":
        return "implied by the task file (older τ²-bench tasks.json: database × communicated information)"
    if source == "explicit":
        return "written in the task file (τ²-bench tasks_v1.json)"
    return "none (assertion-judged tasks)"


def summary(report: RunReport) -> TableData:
    """Counts, flips and effort."""
    t, flips = report.totals, report.flips
    rows = [
        ["simulations", f"{fmt.count(t.simulations)} of {fmt.count(t.expected)} planned"],
        ["excluded (infrastructure errors)", fmt.count(t.excluded)],
        ["valid simulations", fmt.count(t.valid)],
        ["successes", fmt.count(t.successes)],
        ["tasks", fmt.count(t.tasks)],
        ["flip rate", f"{fmt.rate(flips.rate)} ({flips.flipping} of {flips.tasks} tasks with 2+ trials)"],
        ["mean steps", fmt.NA if t.mean_steps is None else f"{t.mean_steps:.1f}"],
        ["tool errors", fmt.count(t.tool_errors)],
        ["simulation time (sum)", f"{t.duration_s:,.1f} s"],
    ]
    return TableData("Summary", ["", "value"], rows, text_columns=2)


def headline_ks(ks: list[str]) -> list[str]:
    """The k a one-screen headline shows: every k up to 5 trials, else 1, 2, 4, 8, … and the largest."""
    if len(ks) <= 5:
        return ks
    return [k for k in ks if int(k) & (int(k) - 1) == 0 or k == ks[-1]]


def pass_hat_k(curve: dict[str, Estimate], level: float, ks: list[str] | None = None) -> TableData:
    """pass^k per k (all, or those in `ks`) with its interval and how many tasks estimated it."""
    rows = [
        [k, fmt.rate(e.value), fmt.interval(e.ci_low, e.ci_high), fmt.count(e.tasks)]
        for k, e in curve.items()
        if ks is None or k in ks
    ]
    return TableData("pass^k", ["k", "pass^k", f"{level:.0%} CI", "tasks"], rows)


def breakdown(name: str, groups: list[GroupStat], ks: list[str] | None = None) -> TableData:
    """pass^k (every k, or those in `ks`) with intervals per group, one line per group."""
    ks = ks if ks is not None else list(groups[0].pass_hat_k) if groups else []
    rows = [
        [
            g.key,
            fmt.count(g.tasks),
            fmt.count(g.trials),
            *(
                f"{fmt.rate(e.value)} {fmt.interval(e.ci_low, e.ci_high)}"
                for k in ks
                for e in [g.pass_hat_k[k]]
            ),
        ]
        for g in groups
    ]
    return TableData(f"By {name}", [name, "tasks", "trials", *(f"pass^{k}" for k in ks)], rows)


def actions(stats: list[ActionStat]) -> TableData:
    """Per expected action: performed, and performed by the right seat."""
    rows = [
        [
            s.name,
            s.side.value,
            fmt.count(s.expected),
            f"{fmt.count(s.performed)} ({fmt.rate(s.performed_rate)})",
            f"{fmt.count(s.by_right_seat)} ({fmt.rate(s.right_seat_rate)})",
        ]
        for s in sorted(stats, key=lambda s: (s.side.value, s.name))
    ]
    return TableData(
        "Reference actions",
        ["action", "seat", "expected", "performed", "by right seat"],
        rows,
        text_columns=2,
    )


def checks(stats: list[CheckStat]) -> TableData:
    """Reward-basis checks per kind: gating ones decide the reward, diagnostic ones are only reported; the
    statements the judges were not needed for in a column of their own when there are any."""
    skipped = any(s.not_needed for s in stats)
    rows = [
        [
            s.kind.value,
            "gating" if s.gating else "diagnostic",
            str(s.simulations),
            str(s.checks),
            f"{s.passed} ({fmt.rate(s.passed / s.checks)})",
            str(s.failed),
            str(s.not_judged),
            *([str(s.not_needed)] if skipped else []),
        ]
        for s in stats
    ]
    columns = ["kind", "role", "sims", "checks", "passed", "failed", "not judged"]
    columns += ["not needed"] if skipped else []
    return TableData("Evaluation kinds", columns, rows, text_columns=2)


def usage(ledger: list[SeatUsage]) -> TableData:
    """Tokens and cost per seat (the cost of every answer, those from the model cache included), and the
    answers from the model cache with what they saved, the replies cut at the token cap and format
    failures when there are any; empty when no seat called a model (offline actors)."""
    shown = [u for u in ledger if u.calls]
    cached = any(u.cached_calls for u in shown)
    truncated = any(u.truncated for u in shown)
    failures = any(u.format_failures for u in shown)
    rows = [
        [
            str(u.seat),
            fmt.count(u.simulations),
            fmt.count(u.calls),
            fmt.count(u.prompt_tokens),
            fmt.count(u.completion_tokens),
            fmt.cost(u.cost),
            fmt.per(u.cost, u.simulations),
            *([f"{fmt.count(u.cached_calls)} ({fmt.usd(u.cached_cost)} saved)"] if cached else []),
            *([fmt.count(u.truncated)] if truncated else []),
            *([fmt.count(u.format_failures)] if failures else []),
        ]
        for u in shown
    ]
    columns = ["seat", "sims", "calls", "prompt tokens", "completion tokens", "cost", "per sim"]
    columns += ["from cache"] if cached else []
    columns += (["cut at token cap"] if truncated else []) + (["format failures"] if failures else [])
    return TableData("Cost and tokens", columns, rows)


def terminations(counts: dict[str, dict[str, int]], excluded: int) -> TableData:
    """How simulations ended, and how many of each ending passed."""
    rows = [
        [reason, fmt.count(c["pass"] + c["fail"]), fmt.count(c["pass"]), fmt.count(c["fail"])]
        for reason, c in counts.items()
    ]
    if excluded:
        rows.append(
            [f"{TerminationReason.INFRASTRUCTURE_ERROR.value} (excluded)", fmt.count(excluded), "", ""]
        )
    return TableData("Terminations × outcome", ["reason", "simulations", "pass", "fail"], rows)


def tasks(outcomes: list[TaskOutcome]) -> TableData:
    """Every task with its trials, successes, pass^1 and flip rate."""
    rows = [
        [
            fmt.short_id(o.task_id),
            fmt.count(o.trials),
            fmt.count(o.excluded),
            fmt.count(o.successes),
            fmt.rate(o.pass_1),
            fmt.rate(o.flip_rate),
        ]
        for o in outcomes
    ]
    return TableData("Tasks", ["task", "valid trials", "excluded", "successes", "pass^1", "flip rate"], rows)


def run_refs(report: ComparisonReport) -> TableData:
    """The two runs side by side; differing fields listed below them."""
    a, b = report.a, report.b
    rows = [
        ["run", a.run_id, b.run_id],
        ["directory", a.path, b.path],
        ["mode", a.mode, b.mode],
        ["agent", a.agent, b.agent],
        ["user", a.user or "none", b.user or "none"],
        ["persona override", a.persona_override or "none", b.persona_override or "none"],
        ["trials", str(a.trials), str(b.trials)],
        *([f"differs: {f.name}", f.a, f.b] for f in report.factors),
    ]
    return TableData("Runs", ["", "A", "B"], rows, text_columns=3)


def pairing(report: ComparisonReport) -> TableData:
    """How tasks were paired and how many."""
    rows = [
        ["paired by", report.pair_by.value],
        ["shared", fmt.count(report.shared)],
        ["only in A", fmt.count(report.only_a)],
        ["only in B", fmt.count(report.only_b)],
    ]
    return TableData("Pairing", ["", "value"], rows, text_columns=2)


def paired_pass_hat_k(
    curve: dict[str, PairedEstimate], level: float, a: str, b: str, ks: list[str] | None = None
) -> TableData:
    """pass^k of A and B (every k, or those in `ks`) and the paired difference B − A."""
    rows = [
        [
            k,
            fmt.rate(e.a),
            fmt.rate(e.b),
            fmt.signed(e.diff),
            fmt.interval(e.ci_low, e.ci_high, True),
            fmt.count(e.tasks),
        ]
        for k, e in curve.items()
        if ks is None or k in ks
    ]
    return TableData(
        f"pass^k ({b} − {a})", ["k", f"A: {a}", f"B: {b}", "B − A", f"{level:.0%} CI", "tasks"], rows
    )


def effort(
    means: list[PairedMean],
    level: float,
    a: str,
    b: str,
    absent: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
) -> TableData:
    """Per seat and measure: the mean per simulation in A and B, and B − A with its interval. A seat
    `absent` from a run (`absent_seats`) shows nothing on its side."""
    rows = [
        [
            m.seat,
            m.measure,
            "" if m.seat in absent[0] else fmt.amount(m.a, m.measure),
            "" if m.seat in absent[1] else fmt.amount(m.b, m.measure),
            fmt.amount(m.diff, m.measure, signed=True),
            fmt.span(m.ci_low, m.ci_high, m.measure),
        ]
        for m in means
        if m.tasks and (m.a or m.b)
    ]
    return TableData(
        f"What it costs, per simulation ({b} − {a})",
        ["seat", "measure", f"A: {a}", f"B: {b}", "B − A", f"{level:.0%} CI"],
        rows,
        text_columns=2,
    )


def absent_seats(report: ComparisonReport) -> tuple[frozenset[str], frozenset[str]]:
    """The seats run A and run B have none of: the user in a solo run."""
    user = frozenset({Side.USER.value})
    return (user if report.a.user is None else frozenset(), user if report.b.user is None else frozenset())


def paired_terminations(means: list[PairedMean], level: float, a: str, b: str) -> TableData:
    """Share of simulations ending for each reason in A and B, and B − A."""
    rows = [
        [
            m.measure,
            fmt.rate(m.a),
            fmt.rate(m.b),
            fmt.signed(m.diff),
            fmt.interval(m.ci_low, m.ci_high, True),
        ]
        for m in means
        if m.tasks
    ]
    return TableData(
        f"How simulations end ({b} − {a})", ["reason", f"A: {a}", f"B: {b}", "B − A", f"{level:.0%} CI"], rows
    )


def paired_breakdown(name: str, groups: list[PairedGroup]) -> TableData:
    """pass^1 of A and B per group, and the difference in pass^k for every k, one line per group."""
    ks = list(groups[0].pass_hat_k) if groups else []
    rows = [
        [
            g.key,
            fmt.count(g.tasks),
            fmt.rate(g.pass_hat_k["1"].a),
            fmt.rate(g.pass_hat_k["1"].b),
            *(
                f"{fmt.signed(e.diff)} {fmt.interval(e.ci_low, e.ci_high, True)}"
                for e in g.pass_hat_k.values()
            ),
        ]
        for g in groups
    ]
    columns = [name, "tasks", "pass^1 A", "pass^1 B", *(f"Δ pass^{k}" for k in ks)]
    return TableData(f"By {name} (B − A)", columns, rows)


def flips(sets: dict[str, FlipSets], listed: bool) -> TableData:
    """How many tasks flip each way; with `listed`, one row per flipping task."""
    if not listed:
        rows = [
            [name, fmt.count(len(s.gained)), fmt.count(len(s.lost))]
            for name, s in sets.items()
            if s.gained or s.lost
        ]
        return TableData("Tasks that flip", ["solved by", "gained (B only)", "lost (A only)"], rows)
    rows = [
        [name, direction, fmt.short_id(key)]
        for name, s in sets.items()
        for direction, keys in (("gained", s.gained), ("lost", s.lost))
        for key in keys
    ]
    return TableData("Tasks that flip", ["solved by", "direction", "task"], rows, text_columns=3)


def action_diffs(diffs: list[ActionDiff], level: float) -> TableData:
    """Performed rate per expected action in A and B, grouped by seat, with the paired difference."""
    rows = [
        [
            d.name,
            d.side.value,
            fmt.rate(d.a),
            fmt.rate(d.b),
            fmt.signed(d.diff),
            fmt.interval(d.ci_low, d.ci_high, True),
        ]
        for d in diffs
    ]
    return TableData(
        "Reference actions performed", ["action", "seat", "A", "B", "B − A", f"{level:.0%} CI"], rows, 2
    )


MISSING_TITLE = "Missing trials (infrastructure errors, kept in the denominator)"


def missing(summary: MissingSummary | None, ks: list[str] | None = None) -> TableData:
    """How many trials are missing, pass^k's bounds had they all failed or all passed (every k, or those
    in `ks`), and every task left with no valid trial, by id; empty when no trial is missing."""
    if summary is None or not summary.trials:
        return TableData(MISSING_TITLE, ["", "value"], [], text_columns=2)
    return TableData(MISSING_TITLE, ["", "value"], _missing_rows(summary, ks), text_columns=2)


def paired_missing(
    summaries: dict[str, MissingSummary], a: str, b: str, ks: list[str] | None = None
) -> TableData:
    """`missing` of both sides of a comparison over their shared tasks, side by side."""
    side_a, side_b = summaries.get("a"), summaries.get("b")
    columns = ["", f"A: {a}", f"B: {b}"]
    if not any(side is not None and side.trials for side in (side_a, side_b)):
        return TableData(MISSING_TITLE, columns, [], text_columns=3)
    rows_a = _missing_rows(side_a, ks) if side_a is not None else []
    rows_b = _missing_rows(side_b, ks) if side_b is not None else []
    labels = list(dict.fromkeys(label for label, _ in (*rows_a, *rows_b)))
    by_a, by_b = _grouped(rows_a), _grouped(rows_b)
    rows = []
    for label in labels:
        values_a, values_b = by_a.get(label, []), by_b.get(label, [])
        for index in range(max(len(values_a), len(values_b))):
            cells = [values[index] if index < len(values) else "" for values in (values_a, values_b)]
            rows.append([label if index == 0 else "", *cells])
    return TableData(MISSING_TITLE, columns, rows, text_columns=3)


def _grouped(rows: list[list[str]]) -> dict[str, list[str]]:
    """Values by row label, a blank label continuing the row above."""
    grouped: dict[str, list[str]] = {}
    label = ""
    for row_label, value in rows:
        label = row_label or label
        grouped.setdefault(label, []).append(value)
    return grouped


def _missing_rows(summary: MissingSummary, ks: list[str] | None) -> list[list[str]]:
    rows = [["missing trials", f"{fmt.count(summary.trials)} in {fmt.count(summary.tasks)} tasks"]]
    for k, bound in summary.bounds.items():
        if ks is None or k in ks:
            span = f"{fmt.rate(bound.low)} – {fmt.rate(bound.high)} ({fmt.count(bound.tasks)} tasks)"
            rows.append([f"pass^{k} if all failed – passed", span])
    rows += [
        ["tasks with no valid trial" if index == 0 else "", fmt.short_id(task_id)]
        for index, task_id in enumerate(summary.all_missing)
    ]
    return rows
