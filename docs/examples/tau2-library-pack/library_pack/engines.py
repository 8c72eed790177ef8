"""A retrieval engine the pack installs (`retrieval_engine.titles`): documents whose title holds every word
of the query. The library domain has no knowledge base; a knowledge domain that offers engines alone can
offer this one (`--retrieval titles`)."""

from __future__ import annotations

from tau2.retrieval import Engine, Hit, KnowledgeBase, Retriever


class TitleSearch(Retriever):
    """Documents whose title holds every word of the query, shortest title first."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self.documents = knowledge.documents

    def search(self, query: str, k: int) -> list[Hit]:
        """At most `k` documents whose title holds every word of `query`, shortest title first."""
        words = query.lower().split()
        found = [doc for doc in self.documents if words and all(w in doc.title.lower() for w in words)]
        found.sort(key=lambda doc: len(doc.title))  # a stable sort: equal lengths stay in id order
        return [Hit(doc, 1.0 / (1 + len(doc.title))) for doc in found][:k]


TITLES = Engine(
    name="titles",
    description="Documents whose title holds every word of the query.",
    build=lambda knowledge, embedder: TitleSearch(knowledge),
    instructions="`KB_search` finds the documents whose title holds every word you give it.",
)
