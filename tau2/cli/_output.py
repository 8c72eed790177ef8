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
from typing import TYPE_CHECKING

import typer

from tau2._display import inert
from tau2.errors import UserInputError

if TYPE_CHECKING:
    from rich.console import Console

STDOUT = Path("-")
"""The file name that means standard output, as in most command-line tools."""


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
    from tau2._display import output_console

    return output_console()


@contextmanager
def help_laid_out() -> Iterator[None]:
    """While a command runs, lay its `--help` out at `READING_WIDTH` on a pipe or in a file, as everything
    else that fills the width there. Typer draws help at its `TERMINAL_WIDTH` (read when Typer loads its
    help module, which only help loads), else at the console's width: rich's 80 columns on a pipe. On a
    terminal, or when COLUMNS or TERMINAL_WIDTH sets a width, nothing changes."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS") or os.environ.get("TERMINAL_WIDTH"):
        yield
        return
    from tau2._display import READING_WIDTH

    if _help_module_loaded():
        from typer import rich_utils

        rich_utils.MAX_WIDTH = READING_WIDTH
    else:
        os.environ["TERMINAL_WIDTH"] = str(READING_WIDTH)
    try:
        yield
    finally:
        os.environ.pop("TERMINAL_WIDTH", None)
        if _help_module_loaded():
            from typer import rich_utils

            rich_utils.MAX_WIDTH = None  # as Typer reads an unset TERMINAL_WIDTH


def _help_module_loaded() -> bool:
    """Whether Typer's help module is loaded (it is loaded only to draw help: loading it costs time)."""
    return "typer.rich_utils" in sys.modules
