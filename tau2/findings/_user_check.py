"""The simulated-user check extension point: what a check of the customer seat in one interactive trajectory
is (`UserCheck`), what it reads (`AuditedTrajectory`), what it found (`UserFinding`), and the registry that
finds the built-in checks and those registered in code, declared or installed (entry points
`user_check.NAME` of the `tau2.plugins` group)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from tau2._registry import Registry, named_registry
from tau2.episode import Trajectory
from tau2.errors import UserInputError
from tau2.findings._findings import Check, Severity
from tau2.findings._seat_tools import SeatTools
from tau2.tasks import Task


@dataclass(frozen=True)
class AuditedTrajectory:
    """What a simulated-user check reads: the trajectory, the seats' tools (`SeatTools`: what the customer
    holds, what only the agent holds, which agent tools write) and the task (None when it is unavailable:
    checks that need it are then skipped)."""

    trajectory: Trajectory
    tools: SeatTools
    task: Task | None

    @property
    def known_task(self) -> Task:
        """The task, for a check that `needs_task` (it runs only when there is one)."""
        if self.task is None:
            raise ValueError("this check needs the task, and the audit has none")
        return self.task


class UserCheck(Check):
    """One simulated-user check: its name, severity and rule, and `find`, which returns what made it fire
    on an interactive trajectory (a line of detail) or None. A check is deterministic and offline and leaves
    what it reads unchanged; `tau2.audit.check_user_check` tries one on real trajectories."""

    find: Callable[[AuditedTrajectory], str | None] = Field(exclude=True)
    needs_task: bool = False
    """Whether the check reads the task (its texts, its assertions): skipped when the task is unavailable."""


USER_CHECK_REGISTRY: Registry[UserCheck] = named_registry(UserCheck, "user check", "user_check", "checks")
"""Every simulated-user check: the built-ins and those registered, declared or installed."""


def register_user_check(check: UserCheck) -> UserCheck:
    """Make `check` audit every interactive trajectory of this process (each run records its findings with
    each simulation); a later registration of the same name replaces it."""
    return USER_CHECK_REGISTRY.register(check.name, check)


class UserFinding(BaseModel):
    """One simulated-user check that fired on a trajectory, with what made it fire."""

    model_config = ConfigDict(frozen=True)

    check: str
    detail: str

    @property
    def severity(self) -> Severity:
        """The check's severity; a warning for a check this process does not have (a plugin check recorded
        by a run that had it installed)."""
        try:
            return USER_CHECK_REGISTRY.get(self.check).severity
        except UserInputError:
            return Severity.WARNING
