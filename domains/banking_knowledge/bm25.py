"""BM25 search over the knowledge base with rank-bm25's Okapi BM25 (k1 = 1.5, b = 0.75, ε = 0.25), the
library τ²-bench uses: document contents (titles are not indexed) and queries split on whitespace after
lower-casing. Scores equal the library's to the last bit; equal scores rank by document id.

rank-bm25 is an optional dependency (`pip install 'tau2[knowledge]'`), imported when an index is built.
"""

from __future__ import annotations

from typing import Any

from tau2 import UserInputError

from .documents import Document, KnowledgeBase

INSTALL_HINT = "the BM25 search needs rank-bm25 and numpy: pip install 'tau2[knowledge]'"


def tokens(text: str) -> list[str]:
    """τ²-bench's BM25 tokens: lower-cased, split on whitespace."""
    return text.lower().split()


class BM25Search:
    """An index of one knowledge base, built once; each term's scores are computed by the library once
    and summed per query in token order, exactly as the library sums them."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        try:
            import numpy
            from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]
        except ImportError:
            raise UserInputError(INSTALL_HINT) from None
        self._numpy: Any = numpy
        self._documents = knowledge.documents
        self._index: Any = BM25Okapi([tokens(document.content) for document in self._documents])
        self._term_scores: dict[str, Any] = {}

    def scores(self, query: str) -> Any:
        """Every document's score for `query` (a numpy array, in id order)."""
        total = self._numpy.zeros(len(self._documents))
        for term in tokens(query):
            scores = self._term_scores.get(term)
            if scores is None:
                scores = self._term_scores[term] = self._index.get_scores([term])
            total += scores
        return total

    def search(self, query: str, k: int) -> list[tuple[Document, float]]:
        """The `k` best documents for `query` with their scores, best first (ties in id order); none for a
        blank query."""
        if not query.strip():
            return []
        scores = self.scores(query)
        order = self._numpy.argsort(-scores, kind="stable")[:k]
        return [(self._documents[index], float(scores[index])) for index in order]
