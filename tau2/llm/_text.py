"""Text from models and providers made safe to store: lone UTF-16 surrogates become U+FFFD."""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def safe_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (a surrogate pair becomes its character),
    so it always encodes as UTF-8; costs one encode when the text is already clean."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
