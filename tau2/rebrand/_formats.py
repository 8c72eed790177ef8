"""Identifier formats: literal text with placeholders for random characters (`C{digits:4}`, `#W{digits:7}`)
and for the start of the identifier renamed (`{prefix}`), parsed once and drawn from a seeded random
generator."""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

CLASSES: dict[str, str] = {
    "digits": string.digits,
    "upper": string.ascii_uppercase,
    "lower": string.ascii_lowercase,
    "alnum": string.ascii_uppercase + string.digits,
    "hex": string.digits + "abcdef",
}
"""The placeholder classes and the characters each draws from."""
_PLACEHOLDER = re.compile(r"\{(?P<kind>[a-z]+)(?::(?P<count>\d+))?\}")
PREFIX = "prefix"
"""The placeholder for the identifier's own start (`prefix_of`): kept when the domain reads a kind from it."""
MAX_RUN = 32


@dataclass(frozen=True)
class IdFormat:
    """A parsed format: literal parts and (character class, count) placeholders, in order."""

    text: str
    parts: tuple[str | tuple[str, int], ...]

    @classmethod
    def parse(cls, text: str) -> IdFormat:
        """Parse `text`; a malformed format is a `ValueError` saying what is wrong."""
        parts: list[str | tuple[str, int]] = []
        position = 0
        for match in _PLACEHOLDER.finditer(text):
            parts.append(text[position : match.start()])
            kind = match["kind"]
            if kind == PREFIX and match["count"] is None:
                parts.append((PREFIX, 0))
                position = match.end()
                continue
            if kind not in CLASSES or match["count"] is None:
                raise ValueError(
                    f"format {text!r}: unknown placeholder {match.group()} "
                    f"(use {{prefix}} or {', '.join(f'{{{name}:N}}' for name in CLASSES)})"
                )
            count = int(match["count"])
            if not 1 <= count <= MAX_RUN:
                raise ValueError(f"format {text!r}: a placeholder draws 1 to {MAX_RUN} characters")
            parts.append((kind, count))
            position = match.end()
        parts.append(text[position:])
        literal = "".join(part for part in parts if isinstance(part, str))
        if "{" in literal or "}" in literal:
            raise ValueError(f"format {text!r}: braces only enclose placeholders such as {{digits:4}}")
        if not any(isinstance(part, tuple) and part[0] != PREFIX for part in parts):
            raise ValueError(f"format {text!r}: needs at least one placeholder such as {{digits:4}}")
        return cls(text, tuple(part for part in parts if part != ""))

    @property
    def room(self) -> int:
        """How many distinct identifiers the format can write."""
        total = 1
        for part in self.parts:
            if isinstance(part, tuple) and part[0] != PREFIX:
                total *= len(CLASSES[part[0]]) ** part[1]
        return total

    @property
    def prefixed(self) -> bool:
        """Whether the format keeps the renamed identifier's start (`{prefix}`)."""
        return any(isinstance(part, tuple) and part[0] == PREFIX for part in self.parts)

    @property
    def length(self) -> int:
        """How long the identifiers it writes are, without a kept prefix."""
        return sum(len(part) if isinstance(part, str) else part[1] for part in self.parts)

    @property
    def digits_only(self) -> bool:
        """Whether the identifiers it writes (without a kept prefix) are all digits."""
        return all(
            part.isdigit() if isinstance(part, str) else part[0] in (PREFIX, "digits") for part in self.parts
        )

    def draw(self, rng: random.Random, original: str = "") -> str:
        """One identifier of this format, renaming `original` (whose prefix `{prefix}` keeps)."""
        return "".join(self._piece(part, rng, original) for part in self.parts)

    @staticmethod
    def _piece(part: str | tuple[str, int], rng: random.Random, original: str) -> str:
        if isinstance(part, str):
            return part
        kind, count = part
        if kind == PREFIX:
            return prefix_of(original)
        return "".join(rng.choices(CLASSES[kind], k=count))

    def pattern(self, original: str = "") -> re.Pattern[str]:
        """A regular expression matching exactly the identifiers this format writes for `original`."""
        pieces = [
            re.escape(part)
            if isinstance(part, str)
            else re.escape(prefix_of(original))
            if part[0] == PREFIX
            else f"[{re.escape(CLASSES[part[0]])}]{{{part[1]}}}"
            for part in self.parts
        ]
        return re.compile("".join(pieces))


def prefix_of(identifier: str) -> str:
    """An identifier's leading characters up to its first digit (`credit_card_` of `credit_card_7815826`,
    `C` of `C1001`), or up to and including its first separator when it has no digit (`chk_` of
    `chk_ada_blue`; nothing for `ada`)."""
    if any(char.isdigit() for char in identifier):
        return re.match(r"\D*", identifier).group()  # type: ignore[union-attr]
    separator = re.search(r"[^0-9A-Za-z]", identifier)
    return "" if separator is None else identifier[: separator.end()]
