"""The audit: `tau2 lint`'s deterministic checks of task files, the simulated-user audit of trajectories
(both re-exported from `tau2.findings`, where the runner finds them to record each simulation's findings),
the attribution of each failed simulation to the agent, the simulated user, a task defect or the
infrastructure, and the regrade of a run's stored trajectories against other task definitions, all offline
and deterministic; and the regrade of a run's stored transcripts by other judges (`regrade_judges`, the one
part that calls models)."""

from tau2.audit._regrade_judges import RegradeResult, RewardFlip, regrade_judges
from tau2.audit._regrade_suite import RegradeReport, VerdictFlip, regrade_suite
from tau2.audit._run_audit import (
    Cause,
    CheckRate,
    RunAudit,
    RunAuditor,
    SimulationAudit,
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
    "RegradeReport",
    "RegradeResult",
    "RewardFlip",
    "RunAudit",
    "RunAuditor",
    "SeatTools",
    "Severity",
    "SimulationAudit",
    "UserFinding",
    "VerdictFlip",
    "attribute",
    "audit_run",
    "audit_trajectory",
    "lint_files",
    "lint_task",
    "policy_findings",
    "regrade_judges",
    "regrade_suite",
]
