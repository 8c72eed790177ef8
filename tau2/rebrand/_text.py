"""Replacing whole occurrences of literals in text: an identifier or a name is replaced only where it stands
on its own, never inside a longer word or number, and a longer literal wins over one it begins with.

Identifiers stand on their own between characters that are not letters or digits, so the customer id in
`6680a37184_20251110` or the order id in `/orders/W2378156` is found; names stand on their own between
characters that are not letters, digits or `_`, so `Ada` is not found in `ADA_LIMIT` or `get_ada`.
Protected words (tool names) are matched like names and left as they are, so nothing inside them changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum

RUN = re.compile(r"[^\W_]+")
"""A maximal run of letters and digits: where a literal can start."""


class Boundary(Enum):
    """Which neighbours end an occurrence."""

    ALNUM = "alnum"
    """Anything but a letter or digit (identifiers)."""
    WORD = "word"
    """Anything but a letter, digit or `_` (names and protected words)."""

    def joins(self, char: str) -> bool:
        """Whether `char` next to an occurrence would make it part of a longer word."""
        return char.isalnum() or (self is Boundary.WORD and char == "_")


@dataclass(frozen=True, slots=True)
class _Entry:
    literal: str
    replacement: str
    lead: int
    """Characters before the literal's first letter or digit (e.g. 1 for `#W2378156`)."""
    boundary: Boundary


def anchor(literal: str) -> tuple[str, int] | None:
    """The first run of letters and digits of `literal` and where it starts; None when it has none."""
    match = RUN.search(literal)
    return None if match is None else (match.group(), match.start())


class Replacer:
    """Replaces every standing occurrence of its literals in a text, in one left-to-right pass.

    Literals are indexed by their first run of letters and digits, then by their length and where that run
    starts in them, so a text position is checked with one lookup per length, however many literals share
    a start (thousands of `credit_card_…` payment ids do)."""

    def __init__(self, entries: Mapping[str, tuple[str, Boundary]]) -> None:
        self._index: dict[str, dict[tuple[int, int], dict[str, _Entry]]] = {}
        self._add(entries)

    def _add(self, entries: Mapping[str, tuple[str, Boundary]]) -> None:
        for literal, (replacement, boundary) in entries.items():
            found = anchor(literal)
            if found is None:
                raise ValueError(f"{literal!r} has no letter or digit to be found by")
            run, lead = found
            shapes = self._index.setdefault(run, {})
            shapes.setdefault((len(literal), lead), {})[literal] = _Entry(
                literal, replacement, lead, boundary
            )
        for run, shapes in self._index.items():
            if len(shapes) > 1:
                self._index[run] = dict(sorted(shapes.items(), key=lambda item: -item[0][0]))
        self._anchors = frozenset(self._index)

    def extended(self, entries: Mapping[str, tuple[str, Boundary]]) -> Replacer:
        """A replacer with these literals too (a literal already present is replaced by its new entry)."""
        copy = Replacer({})
        copy._index = {
            run: {
                shape: {literal: entry for literal, entry in found.items() if literal not in entries}
                for shape, found in shapes.items()
            }
            for run, shapes in self._index.items()
        }
        copy._add(entries)
        return copy

    def __bool__(self) -> bool:
        return bool(self._index)

    def may_occur(self, text: str) -> bool:
        """Whether a literal may stand in `text`: False when no word of it begins one (a quick test)."""
        return bool(self._index) and not self._anchors.isdisjoint(RUN.findall(text))

    def occurrences(self, text: str) -> Iterator[tuple[int, int, str, str]]:
        """(start, end, literal, replacement) of each standing occurrence, left to right, none overlapping."""
        index = self._index
        if not self.may_occur(text):
            return
        done = 0
        size = len(text)
        for run in RUN.finditer(text):
            begin = run.start()
            if begin < done:
                continue
            shapes = index.get(run.group())
            if shapes is None:
                continue
            for (length, lead), found in shapes.items():
                start = begin - lead
                end = start + length
                if start < done or end > size:
                    continue
                entry = found.get(text[start:end])
                if entry is None:
                    continue
                if start > 0 and entry.boundary.joins(text[start - 1]):
                    continue
                if end < size and entry.boundary.joins(text[end]):
                    continue
                yield start, end, entry.literal, entry.replacement
                done = end
                break

    def __call__(self, text: str) -> str:
        """`text` with every standing occurrence replaced."""
        pieces: list[str] = []
        position = 0
        for start, end, _, replacement in self.occurrences(text):
            pieces.append(text[position:start])
            pieces.append(replacement)
            position = end
        if not pieces:
            return text
        pieces.append(text[position:])
        return "".join(pieces)
