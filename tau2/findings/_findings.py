"""What the audit reports: findings with a check name, a severity and a detail, and the checks' rules."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

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


C = TypeVar("C", bound=Check)


class LintFinding(BaseModel):
    """One finding of `tau2 lint`: a check that fired on a task (or on a policy, `task_id` None)."""

    model_config = ConfigDict(frozen=True)

    task_id: str | None
    check: str
    severity: Severity
    detail: str
    file: str | None = None
    """The task file the task came from (several files can be linted together)."""


def plugin_detail(what: str, where: str, find: Callable[[], object], *, built_in: bool) -> str | None:
    """What a check (`what`: "lint check 'polite'") found `where` ("on task 'x'"): `find`'s answer. A check of
    tau2's own fails as any code does; one from a plugin that raises or answers neither None nor text is one
    `UserInputError` line naming it and the task, so a broken plugin never ends a command with a traceback."""
    if built_in:
        answer = find()
    else:
        try:
            answer = find()
        except Exception as error:  # a plugin's failure, said in one line
            raise UserInputError(f"{what} failed {where}: {type(error).__name__}: {error}") from None
    if answer is not None and not isinstance(answer, str):
        raise UserInputError(f"{what} answered {answer!r} {where}: a check answers None or text")
    return answer
