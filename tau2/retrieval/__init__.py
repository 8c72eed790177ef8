"""Retrieval engines and knowledge domains: how an agent reaches a knowledge base's documents.

An `Engine` (none, full, golden, bm25, grep, shell, embeddings, or one of your own, registered with
`register_engine` or installed as entry points `retrieval_engine.NAME` of the `tau2.plugins` group) builds
a `Retriever` over a `KnowledgeBase` and offers the agent its tools; `check_engine` checks one keeps the
interface's promises. A knowledge domain declares its documents, its configurations (lists of engines) and the
engines it offers alone in a `Knowledge`, whose `support` is the domain's `RetrievalSupport`.
"""

from tau2.retrieval._catalog import available_engines, get_engine, register_engine
from tau2.retrieval._check import check_engine
from tau2.retrieval._documents import Document, KnowledgeBase, read_documents
from tau2.retrieval._engine import (
    NO_RESULTS,
    SEARCH_TOOL,
    AgentTool,
    Engine,
    Hit,
    Placement,
    Retriever,
    SearchTool,
    Shown,
    format_hits,
    listed_documents,
)
from tau2.retrieval._knowledge import (
    Configuration,
    Instructions,
    Knowledge,
    Use,
    describe_engines,
    inline,
)

__all__ = [
    "NO_RESULTS",
    "SEARCH_TOOL",
    "AgentTool",
    "Configuration",
    "Document",
    "Engine",
    "Hit",
    "Instructions",
    "Knowledge",
    "KnowledgeBase",
    "Placement",
    "Retriever",
    "SearchTool",
    "Shown",
    "Use",
    "available_engines",
    "check_engine",
    "describe_engines",
    "format_hits",
    "get_engine",
    "inline",
    "listed_documents",
    "read_documents",
    "register_engine",
]
