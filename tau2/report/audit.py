"""The audit's tables in reports: the simulated-user checks' rates with intervals, failed simulations by
cause, and each failed simulation with its cause and findings (rendered by the terminal and the HTML page)."""

from __future__ import annotations

from tau2.audit import Cause, RunAudit
from tau2.report import fmt
from tau2.report.tables import TableData

CAUSE_LABELS = {
    Cause.AGENT: "agent",
    Cause.SIMULATED_USER: "simulated user",
    Cause.TASK_DEFECT: "task defect",
    Cause.INFRASTRUCTURE: "infrastructure",
}


def attribution_line(audit: RunAudit | None) -> str | None:
    """Failed simulations by cause in one line; None when nothing failed."""
    if audit is None or not any(audit.attribution.values()):
        return None
    parts = [f"{CAUSE_LABELS[Cause(cause)]} {fmt.count(n)}" for cause, n in audit.attribution.items()]
    return "failures by cause: " + " · ".join(parts)


def user_checks(audit: RunAudit | None) -> TableData:
    """Each simulated-user check: how many audited simulations it fired on, and its rate with an interval
    (empty when no simulation was audited, as in solo runs)."""
    rows = []
    for rate in [] if audit is None else audit.checks:
        if not rate.audited:
            continue
        e = rate.rate
        rows.append(
            [
                rate.check,
                rate.severity.value,
                fmt.count(rate.audited),
                fmt.count(rate.fired),
                f"{fmt.rate(e.value)} {fmt.interval(e.ci_low, e.ci_high)}".strip(),
            ]
        )
    columns = ["check", "severity", "audited", "fired", "rate [interval]"]
    return TableData("Simulated-user audit", columns, rows, text_columns=2)


def attribution(audit: RunAudit | None) -> TableData:
    """Failed simulations by the cause they are attributed to."""
    counts = {} if audit is None else audit.attribution
    total = sum(counts.values())
    rows = (
        [[CAUSE_LABELS[Cause(cause)], fmt.count(n), fmt.rate(n / total)] for cause, n in counts.items()]
        if total
        else []
    )
    return TableData("Failures by cause", ["cause", "simulations", "share"], rows)


def failures(audit: RunAudit | None) -> TableData:
    """Every failed simulation with its cause and what points there (task defects, user findings); only
    the task id, the one text column, is cut on a narrow terminal."""
    rows = []
    for sim in [] if audit is None else audit.simulations:
        if sim.cause is None:
            continue
        why = [*sim.task_defects, *(f.check for f in sim.findings)]
        rows.append(
            [fmt.short_id(sim.task_id), str(sim.trial), CAUSE_LABELS[sim.cause], ", ".join(why) or "-"]
        )
    return TableData("Failed simulations", ["task", "trial", "cause", "findings"], rows)


def notes(audit: RunAudit | None) -> list[str]:
    """What the audit could not do (no suite to read the tasks from, records without trajectories)."""
    return [] if audit is None else audit.notes
