"""One process per run directory: the directory is claimed (created if missing, then locked with POSIX
`flock`) before anything in it is read or written, so two runs can never interleave, duplicate or mix
records or configurations in one directory."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from tau2.errors import UserInputError
from tau2.runs._words import PYTHON, DirectoryWords


class RunDirectoryLock:
    """Held from before a run reads its directory until it ends (the kernel drops it when the process
    dies). Leaving with an error removes the directory again if this claim created it and it is empty."""

    def __init__(self, run_dir: Path, words: DirectoryWords = PYTHON) -> None:
        self._run_dir = run_dir
        self._words = words
        self._descriptor: int | None = None
        self._created = False

    def acquire(self) -> None:
        """Create and lock the directory; refuse with one line when another process holds it."""
        while self._descriptor is None:
            self._descriptor = self._try_claim()

    def _try_claim(self) -> int | None:
        """The locked descriptor of the directory now at the path, or None when it vanished meanwhile
        (a refused run removing the directory it had created): then the claim starts over."""
        try:
            self._run_dir.mkdir(parents=True)
            self._created = True
        except FileExistsError:
            self._created = False
        try:
            descriptor = os.open(self._run_dir, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            raise UserInputError(f"{self._run_dir}: not a directory; {self._words.elsewhere}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise UserInputError(f"{self._run_dir}: another tau2 run is using this directory") from None
        if not _same_file(descriptor, self._run_dir):
            os.close(descriptor)
            return None
        return descriptor

    def __enter__(self) -> RunDirectoryLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._descriptor is None:
            return
        if exc is not None and self._created:
            with contextlib.suppress(OSError):  # not empty: what is there is kept
                self._run_dir.rmdir()  # still locked: nobody else can have started writing in it
        os.close(self._descriptor)
        self._descriptor = None


def _same_file(descriptor: int, path: Path) -> bool:
    """Whether `descriptor` is still the directory at `path`."""
    try:
        current = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(descriptor)
    return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)
