"""Exported text that a page showing it unescaped can only display: Potato puts an item's strings into its
pages as they are (inside an inline JSON block, among others), so every character that could open a tag,
close that block or start a character reference is replaced by its full-width look-alike."""

from __future__ import annotations

from typing import Final

from pydantic import JsonValue

from tau2._jsonfile import map_strings

MARKUP_LOOKALIKES: Final = {"&": "\uff06", "<": "\uff1c", ">": "\uff1e"}
"""`&`, `<`, `>` and what each becomes: ＆, ＜, ＞."""
_TABLE: Final = str.maketrans(MARKUP_LOOKALIKES)


def inert_markup(text: str) -> str:
    """`text` with `&`, `<` and `>` replaced by ＆, ＜ and ＞: no element, script, comment or entity can
    come of it in HTML, in an attribute or inside a `<script>` block, and it still reads the same."""
    return text.translate(_TABLE)


def inert_strings(value: JsonValue) -> JsonValue:
    """`value` (JSON data) with `inert_markup` applied to every string in it, keys included."""
    return map_strings(value, inert_markup)
