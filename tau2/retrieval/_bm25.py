"""BM25 search over the knowledge base with rank-bm25's Okapi BM25 (k1 = 1.5, b = 0.75, ε = 0.25), the
library τ²-bench uses: document contents (titles are not indexed) and queries split on whitespace after
lower-casing. Scores equal the library's to the last bit; equal scores rank by document id.

rank-bm25 is an optional dependency (the `knowledge` extra), imported when an index is built.
"""

from __future__ import annotations

from typing import Any

from tau2._distribution import install_hint
from tau2.errors import UserInputError
from tau2.retrieval._documents import Document, KnowledgeBase

COMMON = 32
"""Terms in at least this many documents are scored when the index is built, so a query's new terms are
rare ones, each scored over a few documents."""
INSTALL_HINT = f"the BM25 search needs rank-bm25 and numpy: {install_hint('knowledge')}"


def tokens(text: str) -> list[str]:
    """τ²-bench's BM25 tokens: lower-cased, split on whitespace."""
    return text.lower().split()


class BM25Search:
    """An index of one knowledge base, built once.

    The library scores each query term over the documents containing it (`get_batch_scores`; a document
    without the term gets exactly 0 from it), once per term; a query adds its terms' scores in token order,
    as the library's `get_scores` does, so every score is the library's to the last bit while a query costs
    only the documents its new terms occur in (common terms are scored with the index)."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        try:
            import numpy
            from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]
        except ImportError:
            raise UserInputError(INSTALL_HINT) from None
        self._numpy: Any = numpy
        self._documents = knowledge.documents
        self._index: Any = BM25Okapi([tokens(document.content) for document in self._documents])
        postings: dict[str, list[int]] = {}
        for position, frequencies in enumerate(self._index.doc_freqs):
            for term in frequencies:
                postings.setdefault(term, []).append(position)
        self._postings = postings
        self._term_scores: dict[str, tuple[Any, Any]] = {}
        for term, where in postings.items():
            if len(where) >= COMMON:
                self._term(term)

    def _term(self, term: str) -> tuple[Any, Any]:
        """The documents containing `term` and the library's score of the term in each, computed once."""
        found = self._term_scores.get(term)
        if found is None:
            where = self._postings.get(term, [])
            scores = self._index.get_batch_scores([term], where) if where else []
            found = self._term_scores[term] = (self._numpy.array(where, dtype=int), self._numpy.array(scores))
        return found

    def scores(self, query: str) -> Any:
        """Every document's score for `query` (a numpy array, in id order)."""
        total = self._numpy.zeros(len(self._documents))
        for term in tokens(query):
            where, scores = self._term(term)
            total[where] += scores
        return total

    def search(self, query: str, k: int) -> list[tuple[Document, float]]:
        """The `k` best documents for `query` with their scores, best first (ties in id order); none for a
        blank query."""
        if not query.strip():
            return []
        scores = self.scores(query)
        order = self._numpy.argsort(-scores, kind="stable")[:k]
        return [(self._documents[index], float(scores[index])) for index in order]
