"""The deterministic findings on tasks and trajectories: `tau2 lint`'s checks of a task (`lint_task`), the
simulated-user checks of an interactive trajectory (`audit_trajectory`), a simulation's collateral damage
beside its task's reference solution (`ReferenceWrites`, `Collateral`), and `RunFindings`, which the
runner uses to record them in each simulation's record as it is judged. Below the runner so it can;
`tau2.audit` re-exports these names and builds the audit of a run on them.

The finding models load with the package; the checks load on first use, so reading records (which carry
`UserFinding`s) costs none of their patterns and tables."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from tau2.findings._findings import Check, LintFinding, Severity, UserFinding

if TYPE_CHECKING:
    from tau2.findings._collateral import Collateral, ReferenceWrites
    from tau2.findings._lint import LINT_CHECKS, lint_files, lint_task, policy_findings, task_errors
    from tau2.findings._run_findings import RunFindings
    from tau2.findings._user_checks import NEEDS_TASK, USER_CHECKS, SeatTools, audit_trajectory

_CHECKS = {
    "Collateral": "_collateral",
    "ReferenceWrites": "_collateral",
    "LINT_CHECKS": "_lint",
    "lint_files": "_lint",
    "lint_task": "_lint",
    "policy_findings": "_lint",
    "task_errors": "_lint",
    "RunFindings": "_run_findings",
    "NEEDS_TASK": "_user_checks",
    "USER_CHECKS": "_user_checks",
    "SeatTools": "_user_checks",
    "audit_trajectory": "_user_checks",
}
"""Where each name loaded on first use is defined."""

__all__ = [
    "LINT_CHECKS",
    "NEEDS_TASK",
    "USER_CHECKS",
    "Check",
    "Collateral",
    "LintFinding",
    "ReferenceWrites",
    "RunFindings",
    "SeatTools",
    "Severity",
    "UserFinding",
    "audit_trajectory",
    "lint_files",
    "lint_task",
    "policy_findings",
    "task_errors",
]


def __getattr__(name: str) -> Any:
    """Load one of the checks' names on first use, then keep it as a module attribute."""
    module = _CHECKS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
