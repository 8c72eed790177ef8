"""Finding original identifiers that survived a renaming: at a declared identifier field or map key, or
standing on their own anywhere in a text (the identifiers too short to be told from other text are looked
for only where the data declares them)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tau2.rebrand._documents import strings
from tau2.rebrand._kinds import Kinds, stands_out, walk_identifiers
from tau2.rebrand._paths import Path
from tau2.rebrand._text import Boundary, Replacer


class SurvivorSearch:
    """Looks for the old identifiers of a renaming (`old → new`) in renamed documents and texts."""

    def __init__(self, kinds: Kinds, identifiers: Iterable[str], protected: Iterable[str] = ()) -> None:
        self.kinds = kinds
        self.old = frozenset(identifiers)
        self._protected = frozenset(protected)
        entries = {word: (word, Boundary.WORD) for word in self._protected}
        entries.update({old: (old, Boundary.ALNUM) for old in self.old if stands_out(old)})
        self._text = Replacer(entries)

    def extended(self, identifiers: Iterable[str]) -> SurvivorSearch:
        """This search for more old identifiers too (those a task's tools wrote)."""
        more = frozenset(identifiers) - self.old
        if not more:
            return self
        extended = SurvivorSearch.__new__(SurvivorSearch)
        extended.kinds = self.kinds
        extended.old = self.old | more
        extended._protected = self._protected
        extended._text = self._text.extended({old: (old, Boundary.ALNUM) for old in more if stands_out(old)})
        return extended

    def in_text(self, text: str) -> Iterator[str]:
        """The old identifiers standing on their own in `text`."""
        for _, _, literal, _ in self._text.occurrences(text):
            if literal not in self._protected:
                yield literal

    def in_document(self, document: Any, root: Path = ()) -> Iterator[str]:
        """The old identifiers a renamed document still holds, at declared places or in its texts."""
        for _, value in walk_identifiers(self.kinds, document, root):
            if value in self.old:
                yield value
        texts = list(strings(document))
        if not self._text.may_occur("\n".join(texts)):
            return
        for text in texts:
            yield from self.in_text(text)
