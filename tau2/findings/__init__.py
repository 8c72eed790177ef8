"""The deterministic findings on tasks and trajectories: `tau2 lint`'s checks of a task (`lint_task`), the
simulated-user checks of an interactive trajectory (`audit_trajectory`), a simulation's collateral damage
beside its task's reference solution (`ReferenceWrites`, `Collateral`), and `RunFindings`, which the
runner uses to record them in each simulation's record as it is judged. Below the runner so it can;
`tau2.audit` re-exports these names and builds the audit of a run on them.

Both kinds of check are extension points: a `LintCheck` or a `UserCheck` registered in code
(`register_lint_check`, `register_user_check`), declared (`tau2 --plugin lint_check.NAME=REFERENCE`) or
installed (entry points `lint_check.NAME` and `user_check.NAME` of the `tau2.plugins` group) runs beside the
built-in ones (`lint_checks()`, `user_checks()`)."""

from tau2.findings._collateral import Collateral, ReferenceWrites
from tau2.findings._findings import Check, LintFinding, Severity
from tau2.findings._lint import (
    BUILT_IN_LINT_CHECKS,
    lint_checks,
    lint_files,
    lint_task,
    policy_findings,
    task_errors,
)
from tau2.findings._lint_check import LintCheck, LintedTask, register_lint_check
from tau2.findings._run_findings import RunFindings
from tau2.findings._seat_tools import SeatTools
from tau2.findings._user_check import AuditedTrajectory, UserCheck, UserFinding, register_user_check
from tau2.findings._user_checks import BUILT_IN_USER_CHECKS, audit_trajectory, user_checks

__all__ = [
    "BUILT_IN_LINT_CHECKS",
    "BUILT_IN_USER_CHECKS",
    "AuditedTrajectory",
    "Check",
    "Collateral",
    "LintCheck",
    "LintFinding",
    "LintedTask",
    "ReferenceWrites",
    "RunFindings",
    "SeatTools",
    "Severity",
    "UserCheck",
    "UserFinding",
    "audit_trajectory",
    "lint_checks",
    "lint_files",
    "lint_task",
    "policy_findings",
    "register_lint_check",
    "register_user_check",
    "task_errors",
    "user_checks",
]
