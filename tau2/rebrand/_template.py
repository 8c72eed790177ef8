"""A state's JSON text cut at every place a renaming writes an identifier, so that the state renamed by any
renaming of the same identifiers costs one join and one validation rather than a walk of the whole state
(an identifier perturbation renames a large database once per simulation).

The places are found by renaming the state once with the engine itself, each identifier replaced by a
marker: whatever the engine renames (declared fields, map keys, identifiers standing in free text, JSON
passed as text), the template fills in, and nothing else."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._kinds import Kinds
from tau2.rebrand._renaming import Renaming

_MARK = "\x7f"
"""Brackets a marker: printable in JSON without escaping, never a letter or digit, and absent from the
state (checked)."""
_SLOT = re.compile('"\x7fN(\\d+)\x7f"|\x7f(\\d+)\x7f')
"""A marker: a whole JSON string standing for an identifier written as a number, or one inside text."""
_PLAIN = re.compile(r"[ !#-\[\]-~]*")
"""What a new identifier may be written with: printable ASCII but for `"` and `\\`, which JSON text (also
JSON passed as text inside it) takes as written."""


@dataclass(frozen=True)
class StateTemplate:
    """A state document as JSON text with a slot wherever the engine would write an identifier."""

    pieces: tuple[str, ...]
    """The text between the slots (one more than the slots)."""
    slots: tuple[str, ...]
    """The old identifier each slot stands for."""
    numeric: tuple[bool, ...]
    """Whether each slot is an identifier written as a number (written back as one when the new is all
    digits, as the engine does)."""

    @classmethod
    def of(
        cls, kinds: Kinds, found: Mapping[str, str], protected: frozenset[str], document: Any
    ) -> StateTemplate:
        """The template of a state `document` whose identifiers are `found` (identifier → kind)."""
        for kind, form in kinds.formats.items():
            if not _PLAIN.fullmatch(form.text):
                raise UserInputError(
                    f"identifiers: {kind}: format {form.text!r} writes characters other than printable "
                    "ASCII (or a quote or backslash), which identifier renaming cannot write into a state"
                )
        if _MARK in json.dumps(document, ensure_ascii=False):
            raise UserInputError("the state writes the character U+007F, which identifier renaming reserves")
        originals = sorted(found)
        marks = {old: f"{_MARK}{index}{_MARK}" for index, old in enumerate(originals)}
        marker = Renaming(kinds, marks, found, protected=protected)
        marked = _numbers_marked(document, marker.document(document))
        text = json.dumps(marked, ensure_ascii=False)
        pieces: list[str] = []
        slots: list[str] = []
        numeric: list[bool] = []
        position = 0
        for match in _SLOT.finditer(text):
            pieces.append(text[position : match.start()])
            number, inside = match.groups()
            slots.append(originals[int(number if number is not None else inside)])
            numeric.append(number is not None)
            position = match.end()
        pieces.append(text[position:])
        return cls(tuple(pieces), tuple(slots), tuple(numeric))

    def fill(self, identifiers: Mapping[str, str]) -> str:
        """The state's JSON text with every slot's identifier renamed by `identifiers` (old → new)."""
        out = [self.pieces[0]]
        for old, number, piece in zip(self.slots, self.numeric, self.pieces[1:], strict=True):
            new = identifiers[old]
            out.append(f'"{new}"' if number and not new.isdigit() else new)
            out.append(piece)
        return "".join(out)


def _numbers_marked(original: Any, marked: Any) -> Any:
    """`marked` (the engine's renaming of `original` into markers) with each identifier that `original`
    writes as a number marked as such, so the template can write it back as a number."""
    if isinstance(original, dict) and isinstance(marked, dict):
        return {
            key: _numbers_marked(old, new)
            for old, (key, new) in zip(original.values(), marked.items(), strict=True)
        }
    if isinstance(original, list) and isinstance(marked, list):
        return [_numbers_marked(old, new) for old, new in zip(original, marked, strict=True)]
    if isinstance(original, int) and not isinstance(original, bool) and isinstance(marked, str):
        return f"{_MARK}N{marked[1:]}"
    return marked
