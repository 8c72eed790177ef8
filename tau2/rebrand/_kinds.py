"""A domain's identifier declaration compiled for renaming: where each kind's values sit, the format of a
new one, and the identifiers a document holds at the declared places."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._documents import parsed_json
from tau2.rebrand._formats import IdFormat
from tau2.rebrand._paths import Path, PatternIndex
from tau2.world import Identifiers

MIN_TEXT_LENGTH = 5
"""Identifiers shorter than this are changed only where the data declares them, never in free text."""
MIN_TEXT_DIGITS = 7
"""All-digit identifiers shorter than this are likewise too easily mistaken for a number."""


def stands_out(identifier: str) -> bool:
    """Whether an identifier can be told from other text: long enough, and not a short number."""
    if len(identifier) < MIN_TEXT_LENGTH:
        return False
    return not (identifier.isdigit() and len(identifier) < MIN_TEXT_DIGITS)


@dataclass(frozen=True)
class Kinds:
    """A domain's identifier declaration, compiled: where each kind sits, and its format."""

    declaration: Identifiers
    formats: Mapping[str, IdFormat]
    fields: PatternIndex
    keys: PatternIndex

    @classmethod
    def compile(cls, declaration: Identifiers, overrides: Mapping[str, str]) -> Kinds:
        """The declaration with a delta's formats; an override of an undeclared kind is refused."""
        names = [kind.name for kind in declaration.kinds]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise UserInputError(
                f"identifiers: no kind {unknown[0]!r} in this domain (kinds: {', '.join(names)})"
            )
        formats = {}
        for kind in declaration.kinds:
            text = overrides.get(kind.name, kind.format)
            try:
                parsed = IdFormat.parse(text)
            except ValueError as error:
                raise UserInputError(f"identifiers: {kind.name}: {error}") from None
            shortest = MIN_TEXT_DIGITS if parsed.digits_only else MIN_TEXT_LENGTH
            if not parsed.prefixed and parsed.length < shortest:
                raise UserInputError(
                    f"identifiers: {kind.name}: format {text!r} writes identifiers too short to be told from "
                    f"other text (at least {MIN_TEXT_LENGTH} characters, {MIN_TEXT_DIGITS} if all digits)"
                )
            formats[kind.name] = parsed
        return cls(
            declaration,
            formats,
            PatternIndex((pattern, kind.name) for kind in declaration.kinds for pattern in kind.fields),
            PatternIndex((pattern, kind.name) for kind in declaration.kinds for pattern in kind.keys),
        )


def walk_identifiers(kinds: Kinds, value: Any, path: Path = ()) -> Iterator[tuple[str, str]]:
    """(kind, identifier) of every identifier a document holds at a declared field or map key."""
    yield from _identifiers(kinds, value, path, None)


def _identifiers(kinds: Kinds, value: Any, path: Path, inherited: str | None) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        keyed = kinds.keys.label(path) if kinds.keys else None
        for key, item in value.items():
            if keyed is not None and isinstance(key, str):
                yield keyed, key
            yield from _identifiers(kinds, item, (*path, key), None)
    elif isinstance(value, list):
        kind = inherited or kinds.fields.label(path)
        for index, item in enumerate(value):
            yield from _identifiers(kinds, item, (*path, index), kind)
    elif isinstance(value, str):
        kind = inherited or kinds.fields.label(path)
        if kind is not None:
            if any(char.isalnum() for char in value):
                yield kind, value
        elif (inner := parsed_json(value)) is not None:
            yield from _identifiers(kinds, inner, path, None)
    elif isinstance(value, int) and not isinstance(value, bool):
        kind = inherited or kinds.fields.label(path)
        if kind is not None:
            yield kind, str(value)
