"""Solo mode's precondition: the agent works alone from a written ticket, so every task needs one."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.errors import UserInputError
from tau2.tasks._task import Task


def require_tickets(tasks: Sequence[Task]) -> None:
    """Refuse solo mode on one line when a task carries no ticket (e.g. airline and retail tasks, whose
    customer only talks)."""
    missing = [task.id for task in tasks if not task.ticket]
    if missing:
        count = f"{len(missing)} of {len(tasks)} tasks have none" if len(tasks) > 1 else "it has none"
        raise UserInputError(
            f"solo mode needs a ticket for the agent to work from, but task {missing[0]!r} "
            f"does not carry one ({count}); run these tasks in interactive mode"
        )
