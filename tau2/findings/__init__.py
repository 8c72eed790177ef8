"""The deterministic findings on tasks and trajectories: `tau2 lint`'s checks of a task (`lint_task`), the
simulated-user checks of an interactive trajectory (`audit_trajectory`), and `RunFindings`, which the
runner uses to record both in each simulation's record as it is judged. Below the runner so it can;
`tau2.audit` re-exports these names and builds the audit of a run on them."""

from tau2.findings._findings import Check, LintFinding, Severity
from tau2.findings._lint import LINT_CHECKS, lint_files, lint_task, policy_findings
from tau2.findings._run_findings import RunFindings
from tau2.findings._user_checks import NEEDS_TASK, USER_CHECKS, SeatTools, UserFinding, audit_trajectory

__all__ = [
    "LINT_CHECKS",
    "NEEDS_TASK",
    "USER_CHECKS",
    "Check",
    "LintFinding",
    "RunFindings",
    "SeatTools",
    "Severity",
    "UserFinding",
    "audit_trajectory",
    "lint_files",
    "lint_task",
    "policy_findings",
]
