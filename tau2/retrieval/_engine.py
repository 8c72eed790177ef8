"""The one interface of retrieval engines: an `Engine` builds a `Retriever` (its index of one knowledge
base) once, which answers a query with ranked documents (`Hit`s) and offers the agent tools the engine
declares; the engine also says which documents the agent's instructions hold and which documents a call
of its tools showed, without building the index (so a recall diagnostic or an export never embeds a
knowledge base)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.world import EmbedderConfig

AgentTool = Callable[..., str]
"""A retrieval tool: a function whose first parameter is the domain's state (unused: retrieval reads only
the knowledge base) and whose other parameters, type hints and docstring (with `Args:`) are what the
agent sees; it answers text."""

SEARCH_TOOL = "KB_search"
"""The name of the search tool over a ranking engine, unless a configuration names it otherwise."""

NO_RESULTS = "No relevant documents found."
"""A search tool's answer when the search found nothing."""


class Hit(NamedTuple):
    """A document a search returned, with its score (higher is better)."""

    document: Document
    score: float


class Retriever:
    """An engine's index of one knowledge base, built once; subclasses override what their engine does."""

    def search(self, query: str, k: int) -> list[Hit]:
        """At most `k` documents of the knowledge base for `query`, best first; deterministic, and the first
        documents of a larger `k`'s answer. An engine that ranks nothing answers none."""
        return []

    def tools(self, top_k: int) -> list[AgentTool]:
        """The engine's own agent tools (the search tool over `search` is added apart), in the order the
        agent sees them; `top_k` is the configured number of documents a search returns."""
        return []


Placement = Callable[[KnowledgeBase, Sequence[Document] | None], Sequence[Document] | None]
"""The documents an engine places in the agent's instructions, given the knowledge base and the documents
the task needs (None: no task yet, as for the instructions a run's manifest hashes); None: it places
none."""

Shown = Callable[[KnowledgeBase, str, Mapping[str, Any], str], Iterable[str]]
"""The ids of the documents one call of an engine's tool showed the agent: (knowledge base, tool name,
arguments, answer text)."""

_LISTED_ID = re.compile(r"^   ID: (\S+)$", re.MULTILINE)


def listed_documents(
    knowledge: KnowledgeBase, tool: str, arguments: Mapping[str, Any], text: str
) -> list[str]:
    """The ids a search answer lists (the `   ID: …` lines of `format_hits`)."""
    return _LISTED_ID.findall(text)


@dataclass(frozen=True)
class SearchTool:
    """How the agent's search tool over an engine's ranking is presented."""

    name: str = SEARCH_TOOL
    description: str = "Search the knowledge base for the documents most relevant to a query."
    k_argument: bool = False
    """Whether the agent also gives `k`: the answer is then the first `k` of the configured number of best
    documents, as Python slices a list (so a `k` above it gives it, and `k` = -2 two fewer)."""


@dataclass(frozen=True)
class Engine:
    """A retrieval engine: how it builds its index of a knowledge base, and what it puts in the agent's
    hands. Registered by name (`register_engine`), installed under the entry-point group
    `tau2.plugins` (as `retrieval_engine.NAME`), or named as a reference; `check_engine` checks one."""

    name: str
    description: str
    """One line saying what the engine does."""
    build: Callable[[KnowledgeBase, EmbedderConfig | None], Retriever]
    """Its index of a knowledge base (with the embeddings endpoint, for an engine that needs one); built
    once per knowledge base and endpoint, and never for the instructions or the recall diagnostic."""
    search_tool: bool = True
    """Whether the agent searches its ranking with a search tool (`KB_search`, unless a configuration
    presents it otherwise)."""
    tools: tuple[str, ...] = ()
    """The names of its own agent tools (`Retriever.tools`), in order."""
    instructions: str = ""
    """What the agent is told about the engine's tools, for a domain that writes instructions for any
    engine (`describe_engines`)."""
    embeddings: bool = False
    """Whether it needs an embeddings endpoint (`RetrievalConfig.embedder`)."""
    placed: Placement | None = None
    """The documents it places in the agent's instructions; None: none."""
    shown: Shown = field(default=listed_documents)
    """The documents one call of its tools showed (default: those a search answer lists)."""

    def tool_names(self, search: SearchTool | None = None) -> tuple[str, ...]:
        """The agent tools it offers, in order: the search tool (named as `search` says) and its own."""
        named = (search or SearchTool()).name
        return ((named,) if self.search_tool else ()) + self.tools


def format_hits(hits: Sequence[Hit] | Sequence[tuple[Document, float]]) -> str:
    """Search results as the agent reads them (τ²-bench's format): number, title, id, score, content."""
    return "\n".join(
        f"{number}. {document.title or 'Untitled'}\n   ID: {document.id}\n   Score: {score:.4f}\n"
        f"   Content: {document.content}\n"
        for number, (document, score) in enumerate(hits, 1)
    )


def search_tool(search: Callable[[str, int], list[Hit]], top_k: int, presented: SearchTool) -> AgentTool:
    """The agent's search tool over `search`, answering `top_k` documents (or the first `k` of them)."""
    if presented.k_argument:

        def sliced(state: object, query: str, k: int = 10) -> str:
            hits = search(query, top_k)[:k]
            return format_hits(hits) if hits else NO_RESULTS

        sliced.__doc__ = (
            f"{presented.description}\n\nArgs:\n    query: What to look for, in words.\n"
            "    k: How many documents to return at most.\n"
        )
        sliced.__name__ = presented.name
        return sliced

    def whole(state: object, query: str) -> str:
        hits = search(query, top_k)
        return format_hits(hits) if hits else NO_RESULTS

    whole.__doc__ = f"{presented.description}\n\nArgs:\n    query: What to look for, in words.\n"
    whole.__name__ = presented.name
    return whole
