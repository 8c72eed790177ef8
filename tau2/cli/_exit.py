"""The command line's exit codes, and the line each kind of failure prints (docs/running.md lists them)."""

from __future__ import annotations

import errno
from enum import IntEnum


class ExitCode(IntEnum):
    """How a `tau2` command ended; 128 + N means it was stopped by signal N (130 for Ctrl-C)."""

    OK = 0
    FAILED = 1
    """The command ran but found failures (invalid tasks, rejected tasks), or an unexpected error."""
    BAD_INPUT = 2
    """Something the user gave is wrong: an option, a file's content, a path that is not what it should be."""
    ENVIRONMENT = 3
    """The machine refused: disk full, permission denied, read-only file system, I/O error."""


_ENVIRONMENT_ERRNOS = frozenset(
    {
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.EIO,
        errno.EMFILE,
        errno.ENFILE,
    }
)
_REASONS = {
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.EISDIR: "is a directory, not a file",
    errno.EEXIST: "already exists",
    errno.ENOTEMPTY: "directory not empty",
    errno.ENOSPC: "no space left on the device (disk full)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENAMETOOLONG: "file name too long",
}


def os_failure(error: OSError) -> tuple[str, ExitCode]:
    """The line and exit code for a file-system error: the path it concerns and the problem in words."""
    code = ExitCode.ENVIRONMENT if error.errno in _ENVIRONMENT_ERRNOS else ExitCode.BAD_INPUT
    reason = _REASONS.get(error.errno or 0) or error.strerror or type(error).__name__
    paths = [str(path) for path in (error.filename, error.filename2) if path is not None]
    where = " → ".join(paths) if paths else "a file operation"
    return f"{where}: {reason}", code
