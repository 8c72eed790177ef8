"""Replacing a run file all at once: write a uniquely named temporary beside it, `fsync`, rename; so a
kill, a full disk or a second process never leaves half a file or a file mixing two writers."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tau2.errors import UserInputError
from tau2.runs._words import PYTHON, DirectoryWords

_SUFFIX = ".tmp"


def write_atomically(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace `path` with `data` (bytes, or pieces written one after the other); on any failure the old
    file (or its absence) stays and no temporary is left behind."""
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=_SUFFIX)
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for piece in [data] if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def is_temporary(path: Path, target: str) -> bool:
    """Whether `path` is a temporary that `write_atomically` left behind, killed while writing `target`."""
    return path.name.startswith(f".{target}.") and path.name.endswith(_SUFFIX) and path.is_file()


def clear_unfinished_writes(directory: Path, target: str, what: str, words: DirectoryWords = PYTHON) -> None:
    """Refuse `directory` in one `UserInputError` line when it holds anything but temporaries of a `target`
    write that never finished (a kill or a full disk before anything began), which are removed; `what`
    names what resuming would continue there (`run`, `experiment`), in the caller's `words`."""
    contents = list(directory.iterdir())
    if not all(is_temporary(path, target) for path in contents):
        raise UserInputError(
            f"{directory}: not empty; {words.resume} to continue its {what}, or {words.elsewhere}"
        )
    for path in contents:
        path.unlink()


def _sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
