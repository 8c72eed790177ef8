"""The tables of reports as plain rows of text, rendered by both the terminal and the HTML page."""

from __future__ import annotations

from dataclasses import dataclass

from tau2.metrics import (
    ActionDiff,
    ActionStat,
    CheckStat,
    Estimate,
    FlipSets,
    GroupStat,
    PairedEstimate,
    PairedGroup,
    SeatUsage,
    TaskOutcome,
)
from tau2.report import fmt
from tau2.report.schema import ComparisonReport, RunReport, SimulationRow
from tau2.trajectory import TerminationReason


@dataclass(frozen=True)
class TableData:
    """A titled table; the first `text_columns` columns are text, the others numbers."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    text_columns: int = 1


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
        ["persona override", m.persona_override or "none (per-task personas)"],
        ["policy variant", m.policy_variant],
        ["trials", str(m.trials)],
        ["seed", str(m.seed)],
        ["max steps / errors", f"{m.max_steps} / {m.max_errors}"],
        ["reward basis", _basis_source(m.reward_basis_source)],
        ["judge", "none" if m.judge is None else m.judge.label()],
        ["tasks planned", str(len(m.task_ids))],
        *([f"version {key}", value] for key, value in sorted(m.versions.items())),
        *([f"hash {key}", value] for key, value in sorted(m.hashes.items())),
    ]
    return TableData("Run configuration", ["field", "value"], rows, text_columns=2)


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
        ["simulations", f"{t.simulations} of {t.expected} planned"],
        ["excluded (infrastructure errors)", str(t.excluded)],
        ["valid simulations", str(t.valid)],
        ["successes", str(t.successes)],
        ["tasks", str(t.tasks)],
        ["flip rate", f"{fmt.rate(flips.rate)} ({flips.flipping} of {flips.tasks} tasks with 2+ trials)"],
        ["mean steps", fmt.NA if t.mean_steps is None else f"{t.mean_steps:.1f}"],
        ["tool errors", str(t.tool_errors)],
        ["simulation time (sum)", f"{t.duration_s:.1f} s"],
    ]
    return TableData("Summary", ["", "value"], rows, text_columns=2)


def pass_hat_k(curve: dict[str, Estimate], level: float) -> TableData:
    """pass^k per k with its interval and how many tasks estimated it."""
    rows = [[k, fmt.rate(e.value), fmt.interval(e.ci_low, e.ci_high), str(e.tasks)] for k, e in curve.items()]
    return TableData("pass^k", ["k", "pass^k", f"{level:.0%} CI", "tasks"], rows)


def breakdown(name: str, groups: list[GroupStat]) -> TableData:
    """pass^k with intervals per group."""
    ks = list(groups[0].pass_hat_k) if groups else []
    rows = [
        [
            g.key,
            str(g.tasks),
            str(g.trials),
            *(f"{fmt.rate(e.value)}\n{fmt.interval(e.ci_low, e.ci_high)}" for e in g.pass_hat_k.values()),
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
            str(s.expected),
            f"{s.performed} ({fmt.rate(s.performed_rate)})",
            f"{s.by_right_seat} ({fmt.rate(s.right_seat_rate)})",
        ]
        for s in stats
    ]
    return TableData(
        "Reference actions",
        ["action", "seat", "expected", "performed", "by right seat"],
        rows,
        text_columns=2,
    )


def checks(stats: list[CheckStat]) -> TableData:
    """Reward-basis checks per kind: gating ones decide the reward, diagnostic ones are only reported."""
    rows = [
        [
            s.kind.value,
            "gating" if s.gating else "diagnostic",
            str(s.simulations),
            str(s.checks),
            f"{s.passed} ({fmt.rate(s.passed / s.checks)})",
            str(s.failed),
            str(s.not_judged),
        ]
        for s in stats
    ]
    columns = ["kind", "role", "sims", "checks", "passed", "failed", "not judged"]
    return TableData("Evaluation kinds", columns, rows, text_columns=2)


def usage(ledger: list[SeatUsage]) -> TableData:
    """Tokens and cost per seat."""
    rows = [
        [
            str(u.seat),
            str(u.simulations),
            str(u.calls),
            str(u.prompt_tokens),
            str(u.completion_tokens),
            fmt.cost(u.cost, u.unpriced, u.simulations),
            fmt.per(u.cost, u.simulations),
        ]
        for u in ledger
    ]
    columns = ["seat", "sims", "calls", "prompt tokens", "completion tokens", "cost", "per sim"]
    return TableData("Cost and tokens", columns, rows)


def terminations(counts: dict[str, int]) -> TableData:
    """How simulations ended."""
    rows = [
        [reason + (" (excluded)" if TerminationReason(reason).is_infrastructure else ""), str(n)]
        for reason, n in counts.items()
    ]
    return TableData("Terminations", ["reason", "simulations"], rows)


def tasks(outcomes: list[TaskOutcome]) -> TableData:
    """Every task with its trials, successes, pass^1 and flip rate."""
    rows = [
        [
            o.task_id,
            str(o.trials),
            str(o.excluded),
            str(o.successes),
            fmt.rate(o.pass_1),
            fmt.rate(o.flip_rate),
        ]
        for o in outcomes
    ]
    return TableData("Tasks", ["task", "valid trials", "excluded", "successes", "pass^1", "flip rate"], rows)


def simulations(rows: list[SimulationRow]) -> TableData:
    """Every simulation with its reward and termination."""
    body = [
        [
            r.task_id,
            str(r.trial),
            f"{r.reward:g}",
            r.termination.value + (" (excluded)" if r.excluded else ""),
            str(r.steps),
            str(r.tool_errors),
            f"{r.duration_s:.1f}",
        ]
        for r in rows
    ]
    columns = ["task", "trial", "reward", "termination", "steps", "tool errors", "seconds"]
    return TableData("Simulations", columns, body)


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
        ["shared", str(report.shared)],
        ["only in A", str(report.only_a)],
        ["only in B", str(report.only_b)],
    ]
    return TableData("Pairing", ["", "value"], rows, text_columns=2)


def paired_pass_hat_k(curve: dict[str, PairedEstimate], level: float) -> TableData:
    """pass^k of A and B and the paired difference B − A."""
    rows = [
        [
            k,
            fmt.rate(e.a),
            fmt.rate(e.b),
            fmt.signed(e.diff),
            fmt.interval(e.ci_low, e.ci_high, True),
            str(e.tasks),
        ]
        for k, e in curve.items()
    ]
    return TableData("pass^k (B − A)", ["k", "A", "B", "B − A", f"{level:.0%} CI", "tasks"], rows)


def paired_breakdown(name: str, groups: list[PairedGroup]) -> TableData:
    """pass^1 of A and B per group, and the difference in pass^k for every k."""
    ks = list(groups[0].pass_hat_k) if groups else []
    rows = [
        [
            g.key,
            str(g.tasks),
            fmt.rate(g.pass_hat_k["1"].a),
            fmt.rate(g.pass_hat_k["1"].b),
            *(
                f"{fmt.signed(e.diff)}\n{fmt.interval(e.ci_low, e.ci_high, True)}"
                for e in g.pass_hat_k.values()
            ),
        ]
        for g in groups
    ]
    columns = [name, "tasks", "pass^1 A", "pass^1 B", *(f"Δ pass^{k}" for k in ks)]
    return TableData(f"By {name} (B − A)", columns, rows)


def flips(sets: dict[str, FlipSets]) -> TableData:
    """Tasks solved in only one run, under each definition of solved."""
    rows = [[name, _listing(s.gained), _listing(s.lost)] for name, s in sets.items()]
    return TableData(
        "Tasks that flip", ["solved by", "gained (B only)", "lost (A only)"], rows, text_columns=3
    )


def _listing(keys: list[str]) -> str:
    return "\n".join([str(len(keys)), *keys])


def action_diffs(diffs: list[ActionDiff]) -> TableData:
    """Performed rate per expected action in A and B."""
    rows = [[d.name, fmt.rate(d.a), fmt.rate(d.b), fmt.signed(d.diff)] for d in diffs]
    return TableData("Reference actions performed", ["action", "A", "B", "B − A"], rows)
