"""Command output: lines holding data printed inert, `-` as a file name meaning stdout, and output paths
checked before the work that fills them starts."""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
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


def require_writable_path(path: Path, option: str, inputs: Iterable[Path] = ()) -> None:
    """Refuse, before any work, an output path that cannot become a file (a directory, or under a file) or
    that is one of the command's `inputs` (files, or directories such as a run's) or any file inside
    them, pages written earlier (`.html`) aside. Files are told apart by identity (device and inode), so
    a symbolic or hard link to a run's `results.jsonl` is refused like the file itself."""
    if is_stdout(path):
        return
    protected = _input_files(inputs)
    try:
        status = path.stat()
    except OSError:
        status = None
    if status is not None and (status.st_dev, status.st_ino) in protected:
        source = protected[status.st_dev, status.st_ino]
        same = "is a file" if path == source else f"is the same file as {source}, a file"
        raise UserInputError(f"{option} {path}: {same} this command reads; choose another path")
    if path.is_dir():
        raise UserInputError(f"{option} {path}: is a directory, not a file")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UserInputError(f"{option} {path}: {parent} is a file, not a directory")
            if parent != path.parent:
                raise UserInputError(f"{option} {path}: directory {path.parent} does not exist")
            return


def refuse_stdout_over(inputs: Iterable[Path]) -> None:
    """Refuse to print into one of the command's inputs, or a file inside them, when standard output was
    sent there (`tau2 report RUN --json >> RUN/results.jsonl`)."""
    try:
        status = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # no real stdout (a test runner's capture)
        return
    source = _input_files(inputs).get((status.st_dev, status.st_ino))
    if source is not None:
        raise UserInputError(f"standard output is {source}, a file this command reads; write elsewhere")


_INPUT_DEPTH: Final = 2
"""How deep the files of an input directory are protected: a run's files, and an experiment's arms'."""


def _input_files(inputs: Iterable[Path]) -> dict[tuple[int, int], Path]:
    """The identity (device, inode) of every input file and of every file in the input directories down
    to `_INPUT_DEPTH` levels, links followed, HTML pages left out; each with the path it was found at."""
    found: dict[tuple[int, int], Path] = {}
    pending = [(Path(path), 0) for path in inputs]
    while pending:
        path, depth = pending.pop()
        try:
            status = path.stat()
        except OSError:
            continue
        if stat.S_ISDIR(status.st_mode):
            if depth < _INPUT_DEPTH:
                try:
                    pending.extend((entry, depth + 1) for entry in path.iterdir())
                except OSError:
                    continue
        elif depth == 0 or path.suffix != ".html":
            found.setdefault((status.st_dev, status.st_ino), path)
    return found


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
