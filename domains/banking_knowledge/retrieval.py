"""The retrieval configurations: for each, the agent's instructions (a template of the data directory's
`prompts/`) and its retrieval tools, placed before the bank's own tools.

| Configuration | Instructions | Retrieval tools |
|---|---|---|
| `no_knowledge` | `no_knowledge.md` | none |
| `full_kb` | `full_kb.md`, every document inlined | none |
| `golden_retrieval` | `required_docs.md`, the task's documents inlined | none |
| `bm25`, `bm25_grep` | `classic_rag_bm25_no_grep.md`, `classic_rag_bm25.md` | `KB_search` (BM25) [+ `grep`] |
| `grep_only` | `grep_only.md` | `grep` |
| `terminal_use` | `agentic_search.md` | `shell` (read-only, in process) |
| `openai_embeddings[_grep]`, `qwen_…` | `classic_rag_openai[_no_grep].md`, … | dense `KB_search` [+ `grep`] |
| `alltools`, `alltools-qwen` | `all_tools.md` | `KB_search_bm25`, `KB_search_dense`, `shell` |

The dense configurations need an embeddings endpoint (`RetrievalConfig.embedder`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tau2 import ErrorCode, Side, ToolError, ToolKind, ToolSet, UserInputError
from tau2._jsonfile import read_text_bounded
from tau2.tau2bench import METADATA_KEY
from tau2.world import EmbedderConfig, RetrievalConfig

from .bm25 import BM25Search
from .dense import DenseSearch, OpenAIEmbedder
from .documents import Document, KnowledgeBase, knowledge_base
from .grep_search import grep
from .loader import DATA_DIR
from .patterns import UnsupportedPattern
from .shell import VirtualShell, build_tree, file_name
from .state import BankDB

if TYPE_CHECKING:
    from tau2 import Task

PROMPTS_DIR = "prompts"
GREP_RESULTS = 10
"""Documents one `grep` call returns (the configuration's `top_k` sizes the searches)."""


@dataclass(frozen=True)
class Configuration:
    """What one configuration puts in the agent's hands."""

    template: str
    search: str | None = None
    """`KB_search`'s engine: `bm25`, `dense`, or None for no `KB_search`."""
    grep: bool = False
    shell: bool = False
    all_tools: bool = False
    """`KB_search_bm25`, `KB_search_dense` and `shell` (the `alltools` configurations)."""
    provider: str | None = None
    """How the `alltools` instructions name the dense search's provider."""
    tau2bench_embedder: EmbedderConfig | None = None
    """The embeddings τ²-bench's own runs of a dense configuration use (what an imported run records)."""

    @property
    def dense(self) -> bool:
        return self.search == "dense" or self.all_tools


OPENAI_EMBEDDINGS = EmbedderConfig(model="text-embedding-3-large")
QWEN_EMBEDDINGS = EmbedderConfig(
    model="qwen3-embedding-8b", api_base="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY"
)
CONFIGURATIONS: dict[str, Configuration] = {
    "no_knowledge": Configuration("no_knowledge.md"),
    "full_kb": Configuration("full_kb.md"),
    "golden_retrieval": Configuration("required_docs.md"),
    "bm25": Configuration("classic_rag_bm25_no_grep.md", search="bm25"),
    "bm25_grep": Configuration("classic_rag_bm25.md", search="bm25", grep=True),
    "grep_only": Configuration("grep_only.md", grep=True),
    "terminal_use": Configuration("agentic_search.md", shell=True),
    "openai_embeddings": Configuration(
        "classic_rag_openai_no_grep.md", search="dense", tau2bench_embedder=OPENAI_EMBEDDINGS
    ),
    "openai_embeddings_grep": Configuration(
        "classic_rag_openai.md", search="dense", grep=True, tau2bench_embedder=OPENAI_EMBEDDINGS
    ),
    "qwen_embeddings": Configuration(
        "classic_rag_qwen_no_grep.md", search="dense", tau2bench_embedder=QWEN_EMBEDDINGS
    ),
    "qwen_embeddings_grep": Configuration(
        "classic_rag_qwen.md", search="dense", grep=True, tau2bench_embedder=QWEN_EMBEDDINGS
    ),
    "alltools": Configuration(
        "all_tools.md", all_tools=True, provider="OpenAI API", tau2bench_embedder=OPENAI_EMBEDDINGS
    ),
    "alltools-qwen": Configuration(
        "all_tools.md", all_tools=True, provider="OpenRouter", tau2bench_embedder=QWEN_EMBEDDINGS
    ),
}
DEFAULT = "bm25"
"""The configuration of a run that names none: the offline one closest to τ²-bench's default (which
adds dense search and a shell to BM25)."""
TAU2BENCH_DEFAULT = "alltools"
"""The configuration of a τ²-bench run that names none."""
TAU2BENCH_ALIASES = {"AllTools": "alltools"}
RETRIEVAL_TOOLS = frozenset({"KB_search", "KB_search_bm25", "KB_search_dense", "grep", "shell"})
"""Every retrieval tool a configuration may add."""


def configuration(config: RetrievalConfig) -> Configuration:
    """The configuration `config` names; unknown names and a missing or unused embedder are refused."""
    found = CONFIGURATIONS.get(config.name)
    if found is None:
        raise UserInputError(
            f"--retrieval {config.name}: not a retrieval configuration (available: "
            f"{', '.join(CONFIGURATIONS)})"
        )
    if found.dense and config.embedder is None:
        raise UserInputError(
            f"--retrieval {config.name}: searches by embeddings; give --embedding-model (and "
            "--embedding-api-base for an endpoint other than OpenAI's)"
        )
    if not found.dense and config.embedder is not None:
        raise UserInputError(
            f"--embedding-model: the {config.name} configuration does not search by embeddings"
        )
    return found


def recorded(name: str | None, options: Mapping[str, Any]) -> RetrievalConfig:
    """The configuration a τ²-bench results file records (`retrieval_config`, None for τ²-bench's default,
    with `retrieval_config_kwargs`) as ours: its `top_k`, and for a dense configuration the embeddings the
    file names (`embedder_model`, `embedder_api_base`, as tau2 exports them) or else τ²-bench's own."""
    given = TAU2BENCH_DEFAULT if name is None else TAU2BENCH_ALIASES.get(name, name)
    kind = CONFIGURATIONS.get(given)
    if kind is None:
        raise UserInputError(
            f"retrieval_config: {name!r} is not a retrieval configuration tau2 offers (available: "
            f"{', '.join(CONFIGURATIONS)})"
        )
    embedder = None
    if kind.dense:
        model = options.get("embedder_model")
        embedder = (
            {"model": model, "api_base": options.get("embedder_api_base")}
            if model is not None
            else kind.tau2bench_embedder
        )
    try:
        return RetrievalConfig.model_validate(  # strict: `true` or "7" is no number of documents
            {"name": given, "top_k": options.get("top_k", 10), "embedder": embedder}, strict=True
        )
    except ValidationError as error:
        problem = error.errors()[0]
        where = "_".join(str(part) for part in problem["loc"])  # embedder.model: `embedder_model`
        raise UserInputError(f"retrieval_config_kwargs: {where}: {problem['msg']}") from None


def _directory(data_dir: Path | None) -> Path:
    return DATA_DIR if data_dir is None else Path(data_dir)


# Instructions


@cache
def _template(directory: Path, name: str) -> str:
    """A prompt template with its `{{component:NAME}}` parts filled in from `prompts/components/`."""
    path = directory / PROMPTS_DIR / name
    if not path.exists():
        raise UserInputError(f"{path}: no such prompt template")
    text = read_text_bounded(path, text="prompt")

    def component(match: re.Match[str]) -> str:
        part = directory / PROMPTS_DIR / "components" / f"{match.group(1)}.md"
        if not part.exists():
            raise UserInputError(f"{part}: no such prompt component (named in {path})")
        return read_text_bounded(part, text="prompt")

    return re.sub(r"\{\{component:(\w+)\}\}", component, text)


def _inline(documents: Sequence[Document]) -> str:
    return "\n\n---\n\n".join(f"## {document.title}\n\n{document.content}" for document in documents)


def policy(config: RetrievalConfig, data_dir: Path | None, task: Task | None) -> str:
    """The agent's instructions under `config`; for a task, its documents inlined (golden retrieval)."""
    directory = _directory(data_dir)
    kind = configuration(config)
    text = _template(directory, kind.template)
    if config.name == "full_kb":
        text = text.replace("{{full_knowledge_base}}", _inline(knowledge_base(directory).documents))
    if config.name == "golden_retrieval" and task is not None:
        documents = _required(knowledge_base(directory), task)
        text = text.replace(
            "{{required_documents}}", _inline(documents) if documents else "(No documents provided)"
        )
    if kind.all_tools:
        embedder = config.embedder.model if config.embedder is not None else "the configured embedding model"
        sentence = (
            f"The `KB_search_dense` tool uses **{kind.provider}** with embedding model `{embedder}` for "
            "dense retrieval."
        )
        text = text.replace("{{all_tools_dense_instructions}}", sentence)
    return text


def required_documents(task: Task) -> list[str]:
    """The documents a task names as needed (its τ²-bench `required_documents`)."""
    kept = task.metadata.get(METADATA_KEY)
    names = kept.get("required_documents") if isinstance(kept, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def _required(knowledge: KnowledgeBase, task: Task) -> list[Document]:
    found = (knowledge.resolve(name) for name in required_documents(task))
    return [document for document in found if document is not None]


# Tools


def _hits(hits: Sequence[tuple[Document, float]]) -> str:
    return "\n".join(
        f"{number}. {document.title or 'Untitled'}\n   ID: {document.id}\n   Score: {score:.4f}\n"
        f"   Content: {document.content}\n"
        for number, (document, score) in enumerate(hits, 1)
    )


def _search_answer(hits: Sequence[tuple[Document, float]]) -> str:
    return _hits(hits) if hits else "No relevant documents found."


@cache
def _bm25(directory: Path) -> BM25Search:
    return BM25Search(knowledge_base(directory))


@cache
def _dense(directory: Path, config: RetrievalConfig) -> DenseSearch:
    assert config.embedder is not None
    return DenseSearch(knowledge_base(directory), OpenAIEmbedder(config.embedder))


@cache
def _shell(directory: Path) -> VirtualShell:
    return VirtualShell(build_tree(knowledge_base(directory)))


def retrieval_tools(config: RetrievalConfig, data_dir: Path | None) -> ToolSet:
    """The configuration's retrieval tools, bound to the data directory's knowledge base."""
    directory = _directory(data_dir)
    kind = configuration(config)
    knowledge = knowledge_base(directory)
    tools = ToolSet(Side.AGENT)
    add = tools.tool(ToolKind.READ)
    search: Callable[[str, int], list[tuple[Document, float]]] | None = None
    if kind.search == "bm25":
        search = _bm25(directory).search
    elif kind.search == "dense":
        search = _dense(directory, config).search
    if search is not None:
        engine, top_k = search, config.top_k

        def KB_search(state: BankDB, query: str) -> str:
            """Search the knowledge base for the documents most relevant to a query.

            Args:
                query: What to look for, in words.
            """
            return _search_answer(engine(query, top_k))

        add(KB_search)
    if kind.grep:

        def grep_tool(state: BankDB, pattern: str) -> str:
            """Find the knowledge base documents matching a regular expression (case-insensitive), most
            matches first, each with its full content.

            Args:
                pattern: The expression, e.g. 'credit.*card' or 'fee|charge'.
            """
            try:
                hits = grep(knowledge, pattern, GREP_RESULTS)
            except UnsupportedPattern as error:
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f"the pattern {error}") from None
            return _hits(hits) if hits else f"No matches found for pattern: {pattern}"

        grep_tool.__name__ = "grep"
        add(grep_tool)
    if kind.all_tools:
        bm25, dense = _bm25(directory).search, _dense(directory, config).search

        configured_k = config.top_k

        # As τ²-bench: the configured number of best documents, then the first `k` of them as Python
        # slices a list (k = 20 still gives the configured 10, k = -2 leaves out the last two).

        def KB_search_bm25(state: BankDB, query: str, k: int = 10) -> str:
            """Search the knowledge base with BM25 (word overlap).

            Args:
                query: What to look for, in words.
                k: How many documents to return at most.
            """
            return _search_answer(bm25(query, configured_k)[:k])

        def KB_search_dense(state: BankDB, query: str, k: int = 10) -> str:
            """Search the knowledge base by meaning (dense embeddings).

            Args:
                query: What to look for, in words.
                k: How many documents to return at most.
            """
            return _search_answer(dense(query, configured_k)[:k])

        add(KB_search_bm25)
        add(KB_search_dense)
    if kind.shell or kind.all_tools:
        terminal = _shell(directory)

        def shell(state: BankDB, command: str) -> str:
            """Run a read-only shell command in the knowledge base's directory: ls, cat, head, tail, grep,
            find, wc, sort, uniq, joined by pipes. Each document is a Markdown file; INDEX.md lists them.

            Args:
                command: The command line, e.g. "grep -ril 'wire transfer' ." or "cat INDEX.md".
            """
            return terminal.run(command)

        add(shell)
    return tools


# Diagnostics


_RESULT_ID = re.compile(r"^   ID: (\S+)$", re.MULTILINE)
_SEARCH_TOOLS = RETRIEVAL_TOOLS - {"shell"}


@cache
def _document_files(directory: Path) -> dict[str, str]:
    """Document id by its file name in the shell's tree, built once per knowledge base."""
    return {file_name(document.id): document.id for document in knowledge_base(directory).documents}


def retrieved_documents(
    config: RetrievalConfig,
    data_dir: Path | None,
    task: Task,
    calls: Sequence[tuple[str, Mapping[str, Any], str]],
) -> list[str]:
    """The documents the agent was shown: those its search results listed, the files its shell commands
    named or printed lines of (a bare listing of names shows no content), or those its instructions
    inlined."""
    knowledge = knowledge_base(_directory(data_dir))
    if config.name == "full_kb":
        return [document.id for document in knowledge.documents]
    if config.name == "golden_retrieval":
        return [document.id for document in _required(knowledge, task)]
    seen: dict[str, None] = {}
    files = _document_files(_directory(data_dir))
    for name, arguments, text in calls:
        if name in _SEARCH_TOOLS:
            seen.update(dict.fromkeys(_RESULT_ID.findall(text)))
        elif name == "shell":
            command = str(arguments.get("command", ""))
            shown = (document for file, document in files.items() if file in command or f"{file}:" in text)
            seen.update(dict.fromkeys(shown))
    return list(seen)
