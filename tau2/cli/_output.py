"""Command output: lines holding data printed inert, `-` as a file name meaning stdout, and output paths
checked before the work that fills them starts."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import typer

from tau2._display import inert
from tau2.errors import UserInputError

if TYPE_CHECKING:
    from rich.console import Console

STDOUT = Path("-")
"""The file name that means standard output, as in most command-line tools."""

PIPED_WIDTH: Final = 1_000
"""Columns of table output written to a pipe or a file: wide enough that no line is cut."""


def say(text: str, *, err: bool = False) -> None:
    """Echo one line of text built from data, safe for the terminal."""
    typer.echo(inert(text), err=err)


def is_stdout(path: Path | None) -> bool:
    """Whether an output option was given as `-`."""
    return path == STDOUT


@contextmanager
def output_file(path: Path, name: str = "output.json") -> Iterator[Path]:
    """The file to write: `path` itself, or for `-` a temporary file (called `name`) printed afterwards."""
    if not is_stdout(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="tau2-") as folder:
        written = Path(folder) / name
        yield written
        with written.open(encoding="utf-8") as text:
            shutil.copyfileobj(text, sys.stdout)
        sys.stdout.flush()


def require_writable_path(path: Path, option: str) -> None:
    """Refuse an output path that cannot become a file (a directory, or under a file) before any work."""
    if is_stdout(path):
        return
    if path.is_dir():
        raise UserInputError(f"{option} {path}: is a directory, not a file")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UserInputError(f"{option} {path}: {parent} is a file, not a directory")
            if parent != path.parent:
                raise UserInputError(f"{option} {path}: directory {path.parent} does not exist")
            return


def table_console() -> Console:
    """The console printing a command's tables: the terminal's width on a terminal; on a pipe or in a file
    (`tau2 report r | cat`) no line is cut to a width nobody chose, unless COLUMNS sets one."""
    from rich.console import Console

    console = Console()
    if console.is_terminal or os.environ.get("COLUMNS"):
        return console
    return Console(width=PIPED_WIDTH)
