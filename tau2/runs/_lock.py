"""One process per run directory: an advisory lock held while a run reads and appends its store, so two
processes can never interleave or duplicate records in one `results.jsonl` (POSIX `flock`)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from tau2.errors import UserInputError


class RunDirectoryLock:
    """Taken before a resumed run reads its store, or as soon as a new run creates its directory; released
    when the run ends (also when the process dies, since the kernel drops the lock with the descriptor)."""

    def __init__(self, run_dir: Path) -> None:
        self._run_dir = run_dir
        self._descriptor: int | None = None

    def acquire(self) -> None:
        """Lock the directory (creating it if needed); refuse when another process holds it."""
        if self._descriptor is not None:
            return
        self._run_dir.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self._run_dir, os.O_RDONLY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise UserInputError(f"{self._run_dir}: another tau2 run is using this directory") from None
        self._descriptor = descriptor

    def __enter__(self) -> RunDirectoryLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None
