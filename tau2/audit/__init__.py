"""The audit: `tau2 lint`'s deterministic checks of task files, the simulated-user audit of trajectories
(both re-exported from `tau2.findings`, where the runner finds them to record each simulation's findings),
and the audit of a run: how often each simulated-user check fired, and the attribution of each failed
simulation to the agent, the simulated user, a task defect or the infrastructure; all offline and
deterministic. Scoring a run's stored conversations again is `tau2.regrade`."""

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
from tau2.findings import (
    LINT_CHECKS,
    NEEDS_TASK,
    USER_CHECKS,
    Check,
    LintFinding,
    SeatTools,
    Severity,
    UserFinding,
    audit_trajectory,
    lint_files,
    lint_task,
    policy_findings,
)

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
