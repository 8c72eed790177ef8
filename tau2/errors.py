"""Error types shared by the engine: user-facing input errors and structured tool errors."""

from __future__ import annotations

from enum import StrEnum


class UserInputError(ValueError):
    """A problem with something the user supplied (file, argument, name); the CLI prints it on one line
    and exits with code 2."""


class StorageError(Exception):
    """The machine refused to store a run's files (disk full, read-only, permissions); the message names the
    file, what was kept and how to go on, and the CLI exits with code 3, as for any refused write."""


class UnknownDomainError(UserInputError):
    """A domain name that no installed domain pack registers."""


class ErrorCode(StrEnum):
    """Codes of structured tool errors: the five domain codes of the spec plus the world's own."""

    NOT_FOUND = "not_found"
    NOT_OWNED = "not_owned"
    INVALID_ARGUMENT = "invalid_argument"
    INVALID_STATE = "invalid_state"
    CONFLICT = "conflict"
    UNKNOWN_TOOL = "unknown_tool"
    WRONG_SEAT = "wrong_seat"
    INTERNAL_ERROR = "internal_error"
    UNAVAILABLE = "unavailable"
    """The service behind a tool did not answer (down, slow or overloaded): the call changed nothing."""


class ToolError(Exception):
    """Raised inside a tool or env function to fail the operation with a code; the world turns it into
    an error result. Tools raise it before mutating anything, so a failed operation changes nothing."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
