"""Path patterns: dotted names matched against the end of a value's path in a JSON document (`customer_id`,
`payment_methods.*.id`), each part a key or `*` for any key or list position."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Path = tuple[str | int, ...]
"""Where a value sits in a document: its keys and list positions from the top."""

ANY = "*"
_REMEMBERED = 100_000
"""Path tails whose label an index keeps (only the last parts of a path decide its label)."""


def parse_pattern(text: str) -> tuple[str, ...]:
    """A pattern's parts; an empty pattern or an empty part is a `ValueError`."""
    parts = tuple(text.split("."))
    if not text or any(not part for part in parts):
        raise ValueError(f"path pattern {text!r}: parts must be non-empty keys or '*', joined by '.'")
    return parts


def matches(pattern: Sequence[str], path: Path) -> bool:
    """Whether `pattern` matches the end of `path` (a list position only matches `*`)."""
    if len(pattern) > len(path):
        return False
    tail = path[len(path) - len(pattern) :]
    pairs = zip(pattern, tail, strict=True)
    return all(part == ANY or (isinstance(step, str) and step == part) for part, step in pairs)


class PatternIndex:
    """Patterns, each with a label, looked up by the path they match; indexed by their last part so a walk
    over a large document tries only the patterns that can match."""

    def __init__(self, labelled: Iterable[tuple[str, str]]) -> None:
        self._by_last: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        longest = 0
        for text, label in labelled:
            parts = parse_pattern(text)
            self._by_last.setdefault(parts[-1], []).append((parts, label))
            longest = max(longest, len(parts))
        self._any = self._by_last.pop(ANY, [])
        self._longest = longest
        self._seen: dict[tuple[str | int, ...], str | None] = {}

    def __bool__(self) -> bool:
        return bool(self._by_last or self._any)

    def label(self, path: Path) -> str | None:
        """The label of the first pattern (in the order given, specific last parts first) matching `path`."""
        if not path:
            return None
        tail = tuple(-1 if isinstance(step, int) else step for step in path[-self._longest :])
        if tail in self._seen:
            return self._seen[tail]
        label = self._label(path)
        if len(self._seen) < _REMEMBERED:
            self._seen[tail] = label
        return label

    def _label(self, path: Path) -> str | None:
        last = path[-1]
        candidates = self._by_last.get(last, []) if isinstance(last, str) else []
        for parts, label in (*candidates, *self._any):
            if matches(parts, path):
                return label
        return None
