"""Text from data (task ids, model replies, file names) made safe to print on a terminal, and the consoles
the command line and the interactive seats print on.

A terminal obeys escape sequences wherever they come from, so a task id or a model reply holding ESC could
move the cursor, retitle the window or hide output. Everything the command line, the terminal reports and
the interactive seats print from data goes through `inert` (or the rich helpers built on it), which shows
control characters as visible escapes instead.

Output to a pipe or a file is laid out for a reader of any width rather than at rich's 80 columns: lines
and tables at `PIPED_WIDTH`, so none is cut or wrapped to a width nobody chose, and what fills the whole
width (a rule, the panels of `--help`) at `READING_WIDTH`.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, Final

from rich.markup import escape
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

PIPED_WIDTH: Final = 1_000
"""Columns of output written to a pipe or a file: wide enough that no line of text or of a table is cut."""
READING_WIDTH: Final = 160
"""Columns of what fills the width (a rule, the panels of `--help`) on a pipe or in a file: help text
written to 110 columns is not wrapped again, and beside the longest option names and value names (50 and
26 columns) an option's description keeps a line of about 70."""

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""C0 and C1 controls but newline and tab, DEL, bidirectional overrides, and lone UTF-16 surrogates."""


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """`text` with control characters, bidi overrides and lone surrogates written as `\\x1b`, `\\u202e`, …"""
    return _UNSAFE.sub(_visible, text)


def markup_literal(text: str) -> str:
    """`text` for a rich markup string: control characters made visible and `[...]` not read as markup."""
    return escape(inert(text))


def data_text(text: str = "", style: str = "") -> Text:
    """A rich `Text` of `text` (never markup) with its control characters made visible."""
    return Text(inert(text), style=style)


def sized_by_user() -> bool:
    """Whether the user set the width of the output (the `COLUMNS` environment variable)."""
    return bool(os.environ.get("COLUMNS"))


def output_console(**options: Any) -> Console:
    """A console for a command's or a seat's output (`options` as rich's `Console` takes them): the
    terminal's width on a terminal, `COLUMNS` when set, else `PIPED_WIDTH`."""
    from rich.console import Console  # loaded by the commands that print with it, not by every command

    console = Console(**options)
    if console.is_terminal or sized_by_user():
        return console
    return Console(width=PIPED_WIDTH, **options)


def filled_width(console: Console) -> int:
    """How wide to draw what fills a line of `console`: its width, or `READING_WIDTH` on a pipe or in a
    file whose width nobody set."""
    return console.width if console.is_terminal or sized_by_user() else READING_WIDTH
