"""Where a regrade writes: a new run directory, never anything that already holds data, never inside the run
being regraded (which stays exactly as it was), and claimed for one process like any run's directory."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tau2.errors import UserInputError
from tau2.runs import COMMAND_LINE, RunDirectoryLock


@contextmanager
def claimed_output(out: Path, run_dir: Path) -> Iterator[None]:
    """While inside, `out` is this process's: refused up front when it cannot be a new run's directory,
    then created if missing and locked, and found empty under the lock (another regrade or run writing
    there is refused with one line, and nothing of its is touched). Leaving with an error removes the
    directory again if this claim created it and it is empty."""
    require_new_output(out, run_dir)
    with RunDirectoryLock(out, COMMAND_LINE) as lock:
        lock.acquire()
        require_new_output(out, run_dir)  # again: it may have been filled before the lock was taken
        yield


def require_new_output(out: Path, run_dir: Path) -> None:
    """Refuse an `out` that is a file, a directory holding anything (the regraded run included), or a path
    inside the regraded run: one `UserInputError` line, before anything is read or written."""
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out}: not a directory; choose another output directory")
    if out.is_dir() and any(out.iterdir()):
        same = " (it is the run being regraded)" if out.resolve() == run_dir.resolve() else ""
        raise UserInputError(f"--out {out}: not empty{same}; choose another output directory")
    if out.resolve().is_relative_to(run_dir.resolve()):
        raise UserInputError(
            f"--out {out}: inside the run directory {run_dir}, which a regrade leaves as it was"
        )
