"""How a refused run or experiment directory tells the caller the ways on, in the caller's own words: the
command line's options (`--resume`, `--out`) or the Python API's arguments (`resume=True`, `out`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class DirectoryWords:
    """The phrases a refusal ends with, each said as the caller would act on it."""

    resume: str
    """How to continue what the directory holds: `add --resume`."""
    fresh: str
    """How to start anew in a directory with nothing recorded: `run without --resume`."""
    elsewhere: str
    """How to write somewhere else instead: `choose another --out`."""


COMMAND_LINE: Final = DirectoryWords(
    resume="add --resume", fresh="run without --resume", elsewhere="choose another --out"
)
PYTHON: Final = DirectoryWords(
    resume="pass resume=True", fresh="start it without resume=True", elsewhere="give another out"
)
