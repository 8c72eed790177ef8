"""The lines of a results file read with a bound: a line longer than any record could be (a file that is
not a run's results, or a link to a device) is refused with one line naming the file and the line, before
it can fill memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from tau2.errors import UserInputError

MAX_RECORD_BYTES: Final = 256 << 20
"""The longest line of `results.jsonl` read (256 MiB): a record of a hundred turns with long tool results
takes well under a megabyte."""


def bounded_lines(handle: IO[bytes], path: Path) -> Iterator[bytes]:
    """The lines of an open results file, each with its `\\n` (the last may lack one), none longer than
    `MAX_RECORD_BYTES`; the longer line is a `UserInputError` naming `path` and its line number."""
    number = 0
    while line := handle.readline(MAX_RECORD_BYTES + 1):
        number += 1
        if len(line) > MAX_RECORD_BYTES:
            raise UserInputError(
                f"{path}:{number}: a line longer than {MAX_RECORD_BYTES >> 20} MiB, which no record is "
                "(not a run's results file?); not read"
            )
        yield line
