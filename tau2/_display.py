"""Text from data (task ids, model replies, file names) made safe to print on a terminal.

A terminal obeys escape sequences wherever they come from, so a task id or a model reply holding ESC could
move the cursor, retitle the window or hide output. Everything the command line, the terminal reports and
the interactive seats print from data goes through `inert` (or the rich helpers built on it), which shows
control characters as visible escapes instead.
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

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
