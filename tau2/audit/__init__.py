"""The audit: `tau2 lint`'s deterministic checks of task files, the simulated-user audit of trajectories
(both re-exported from `tau2.findings`, where the runner finds them to record each simulation's findings),
the contract checks of new lint and simulated-user checks (`check_lint_check`, `check_user_check`), and the
audit of a run: how often each simulated-user check fired, and the attribution of each failed simulation to
the agent, the simulated user, a task defect or the infrastructure; all offline and deterministic. Scoring
a run's stored conversations again is `tau2.regrade`."""

from tau2.audit._check_checks import check_lint_check, check_user_check
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
    BUILT_IN_LINT_CHECKS,
    BUILT_IN_USER_CHECKS,
    AuditedTrajectory,
    Check,
    LintCheck,
    LintedTask,
    LintFinding,
    SeatTools,
    Severity,
    UserCheck,
    UserFinding,
    audit_trajectory,
    lint_checks,
    lint_files,
    lint_task,
    policy_findings,
    register_lint_check,
    register_user_check,
    user_checks,
)

__all__ = [
    "BUILT_IN_LINT_CHECKS",
    "BUILT_IN_USER_CHECKS",
    "AuditedTrajectory",
    "Cause",
    "Check",
    "CheckRate",
    "LintCheck",
    "LintFinding",
    "LintedTask",
    "RunAudit",
    "RunAuditor",
    "SeatTools",
    "Severity",
    "SimulationAudit",
    "UserCheck",
    "UserFinding",
    "as_played",
    "attribute",
    "audit_run",
    "audit_trajectory",
    "check_lint_check",
    "check_user_check",
    "lint_checks",
    "lint_files",
    "lint_task",
    "policy_findings",
    "register_lint_check",
    "register_user_check",
    "user_checks",
]
