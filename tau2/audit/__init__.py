"""The audit: `tau2 lint`'s deterministic checks of task files, the simulated-user audit of trajectories
(both re-exported from `tau2.findings`, where the runner finds them to record each simulation's findings),
and the audit of a run: how often each simulated-user check fired, and the attribution of each failed
simulation to the agent, the simulated user, a task defect or the infrastructure; all offline and
deterministic. Scoring a run's stored conversations again is `tau2.regrade`."""

from typing import TYPE_CHECKING, Any

import tau2.findings as findings
from tau2.audit._run_audit import (
    Cause,
    CheckRate,
    RunAudit,
    RunAuditor,
    SimulationAudit,
    as_played,
    attribute,
    audit_run,
)
from tau2.findings import NEEDS_TASK, USER_CHECKS, Check, LintFinding, Severity, UserFinding

if TYPE_CHECKING:
    from tau2.findings import LINT_CHECKS, SeatTools, audit_trajectory, lint_files, lint_task, policy_findings

_FROM_FINDINGS = frozenset(
    {"LINT_CHECKS", "SeatTools", "audit_trajectory", "lint_files", "lint_task", "policy_findings"}
)
"""The checks' names re-exported from `tau2.findings`, which loads them on first use (a report of records
that carry their findings never does)."""

__all__ = [
    "LINT_CHECKS",
    "NEEDS_TASK",
    "USER_CHECKS",
    "Cause",
    "Check",
    "CheckRate",
    "LintFinding",
    "RunAudit",
    "RunAuditor",
    "SeatTools",
    "Severity",
    "SimulationAudit",
    "UserFinding",
    "as_played",
    "attribute",
    "audit_run",
    "audit_trajectory",
    "lint_files",
    "lint_task",
    "policy_findings",
]


def __getattr__(name: str) -> Any:
    """One of the checks' names, from `tau2.findings` on first use."""
    if name not in _FROM_FINDINGS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(findings, name)
    globals()[name] = value
    return value
