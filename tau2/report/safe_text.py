"""Rich text for the terminal renderings: data shown literally (never markup) and inert (no escapes)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from tau2._display import inert


def data_text(value: str = "", style: str = "") -> Text:
    """A rich `Text` of `value` with control characters made visible; rich markup in it stays literal."""
    return Text(inert(value), style=style)


def markup_literal(value: str) -> str:
    """`value` for a rich markup string: control characters made visible and `[...]` not read as markup."""
    return escape(inert(value))
