"""The engines tau2 ships: none (the agent knows only its instructions), the whole knowledge base or the
task's own documents in the instructions (full, golden), and BM25, grep, a read-only shell and dense
embeddings as tools. Each behaves as τ²-bench's retrieval configurations do."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from tau2.errors import ErrorCode, ToolError
from tau2.retrieval._bm25 import BM25Search
from tau2.retrieval._dense import DenseSearch, OpenAIEmbedder
from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.retrieval._engine import AgentTool, Engine, Hit, Retriever, format_hits
from tau2.retrieval._grep import grep
from tau2.retrieval._patterns import UnsupportedPattern
from tau2.retrieval._shell import VirtualShell, build_tree, file_name
from tau2.world import EmbedderConfig

GREP_RESULTS = 10
"""Documents one `grep` call returns (the configuration's `top_k` sizes the searches only)."""


def _nothing(knowledge: KnowledgeBase, embedder: EmbedderConfig | None) -> Retriever:
    return Retriever()


NONE = Engine(
    name="none",
    description="No retrieval: the agent knows only its instructions.",
    build=_nothing,
    search_tool=False,
)

FULL = Engine(
    name="full",
    description="Every document of the knowledge base in the agent's instructions.",
    build=_nothing,
    search_tool=False,
    placed=lambda knowledge, required: knowledge.documents,
)

GOLDEN = Engine(
    name="golden",
    description="The documents the task needs in the agent's instructions (an upper bound on retrieval).",
    build=_nothing,
    search_tool=False,
    placed=lambda knowledge, required: required,
)


class _Ranked(Retriever):
    """A retriever whose search is a ranking function."""

    def __init__(self, ranking: Callable[[str, int], list[tuple[Document, float]]]) -> None:
        self._ranking = ranking

    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(document, score) for document, score in self._ranking(query, k)]


def _bm25(knowledge: KnowledgeBase, embedder: EmbedderConfig | None) -> Retriever:
    return _Ranked(BM25Search(knowledge).search)


BM25 = Engine(
    name="bm25",
    description="Okapi BM25 over the documents' words (rank-bm25's scores exactly; the knowledge extra).",
    build=_bm25,
    instructions="`KB_search` ranks the knowledge base's documents by the words they share with a query.",
)


def _embeddings(knowledge: KnowledgeBase, embedder: EmbedderConfig | None) -> Retriever:
    if embedder is None:  # the configuration is refused before; an engine built directly says it too
        raise ValueError("the embeddings engine needs an embeddings endpoint (an EmbedderConfig)")
    return _Ranked(DenseSearch(knowledge, OpenAIEmbedder(embedder)).search)


EMBEDDINGS = Engine(
    name="embeddings",
    description="Dense embeddings from an OpenAI-compatible endpoint, ranked by cosine similarity.",
    build=_embeddings,
    embeddings=True,
    instructions="`KB_search` ranks the knowledge base's documents by how close their meaning is to a query.",
)


class _Grep(Retriever):
    """Documents ranked by how often a regular expression matches them, and the `grep` tool."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self._knowledge = knowledge

    def search(self, query: str, k: int) -> list[Hit]:
        try:
            found = grep(self._knowledge, query, k)
        except UnsupportedPattern:
            return []
        return [Hit(document, score) for document, score in found]

    def tools(self, top_k: int) -> list[AgentTool]:
        knowledge = self._knowledge

        def grep_tool(state: object, pattern: str) -> str:
            """Find the knowledge base documents matching a regular expression (case-insensitive), most
            matches first, each with its full content.

            Args:
                pattern: The expression, e.g. 'credit.*card' or 'fee|charge'.
            """
            try:
                hits = grep(knowledge, pattern, GREP_RESULTS)
            except UnsupportedPattern as error:
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f"the pattern {error}") from None
            return format_hits(hits) if hits else f"No matches found for pattern: {pattern}"

        grep_tool.__name__ = "grep"
        return [grep_tool]


GREP = Engine(
    name="grep",
    description="A case-insensitive regular expression, documents ranked by how often it matches.",
    build=lambda knowledge, embedder: _Grep(knowledge),
    search_tool=False,
    tools=("grep",),
    instructions="`grep` finds the documents a regular expression matches, most matches first.",
)


class _Shell(Retriever):
    """The `shell` tool over the knowledge base's files."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self._terminal = VirtualShell(build_tree(knowledge))

    def tools(self, top_k: int) -> list[AgentTool]:
        terminal = self._terminal

        def shell(state: object, command: str) -> str:
            """Run a read-only shell command in the knowledge base's directory: ls, cat, head, tail, grep,
            find, wc, sort, uniq, joined by pipes. Each document is a Markdown file; INDEX.md lists them.

            Args:
                command: The command line, e.g. "grep -ril 'wire transfer' ." or "cat INDEX.md".
            """
            return terminal.run(command)

        return [shell]


@cache
def _document_files(knowledge: KnowledgeBase) -> dict[str, str]:
    """Document id by its file name in the shell's tree, built once per knowledge base."""
    return {file_name(document.id): document.id for document in knowledge.documents}


def _shell_shown(knowledge: KnowledgeBase, tool: str, arguments: Mapping[str, Any], text: str) -> list[str]:
    """The files a command named or printed lines of (a bare listing of names shows no content)."""
    command = str(arguments.get("command", ""))
    return [
        document
        for file, document in _document_files(knowledge).items()
        if file in command or f"{file}:" in text
    ]


SHELL = Engine(
    name="shell",
    description="A read-only shell over the documents as Markdown files (ls, cat, grep, find, … in process).",
    build=lambda knowledge, embedder: _Shell(knowledge),
    search_tool=False,
    tools=("shell",),
    instructions="`shell` runs read-only commands over the knowledge base, one Markdown file per document.",
    shown=_shell_shown,
)

BUILT_IN: tuple[Engine, ...] = (NONE, FULL, GOLDEN, BM25, GREP, SHELL, EMBEDDINGS)
"""The engines tau2 ships, registered under their names."""
