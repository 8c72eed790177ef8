"""Exported text that a page showing it unescaped can only display: Potato puts an item's strings into its
pages as they are (inside an inline JSON block, among others), so every character that could open a tag,
close that block or start a character reference is replaced by its full-width look-alike."""

from __future__ import annotations

from typing import Any, Final

MARKUP_LOOKALIKES: Final = {"&": "\uff06", "<": "\uff1c", ">": "\uff1e"}
"""`&`, `<`, `>` and what each becomes: ＆, ＜, ＞."""
_TABLE: Final = str.maketrans(MARKUP_LOOKALIKES)


def inert_markup(text: str) -> str:
    """`text` with `&`, `<` and `>` replaced by ＆, ＜ and ＞: no element, script, comment or entity can
    come of it in HTML, in an attribute or inside a `<script>` block, and it still reads the same."""
    return text.translate(_TABLE)


def inert_strings(value: Any) -> Any:
    """`value` (JSON data) with `inert_markup` applied to every string in it, keys included."""
    if isinstance(value, str):
        return inert_markup(value)
    if isinstance(value, list):
        return [inert_strings(item) for item in value]
    if isinstance(value, dict):
        return {inert_markup(str(key)): inert_strings(item) for key, item in value.items()}
    return value
