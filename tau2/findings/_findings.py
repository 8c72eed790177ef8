"""What the audit reports: findings with a check name, a severity and a detail, and the checks' rules."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from tau2.errors import UserInputError


class Severity(StrEnum):
    """How much a finding matters: an error makes scores on the task (or the simulation) untrustworthy,
    a warning is worth reading, a note is information."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Check(BaseModel):
    """One deterministic check: its name, the severity of what it finds, and its rule in a sentence."""

    model_config = ConfigDict(frozen=True)

    name: str
    severity: Severity
    rule: str


class LintFinding(BaseModel):
    """One finding of `tau2 lint`: a check that fired on a task (or on a policy, `task_id` None)."""

    model_config = ConfigDict(frozen=True)

    task_id: str | None
    check: str
    severity: Severity
    detail: str
    file: str | None = None
    """The task file the task came from (several files can be linted together)."""


class UserFinding(BaseModel):
    """One simulated-user check that fired on a trajectory, with what made it fire."""

    model_config = ConfigDict(frozen=True)

    check: str
    detail: str

    @property
    def severity(self) -> Severity:
        """The check's severity; a warning for a check this process does not have (a plugin check recorded
        by a run that had it installed)."""
        from tau2.findings._user_check import USER_CHECK_REGISTRY  # it imports this module

        try:
            return USER_CHECK_REGISTRY.get(self.check).severity
        except UserInputError:
            return Severity.WARNING
