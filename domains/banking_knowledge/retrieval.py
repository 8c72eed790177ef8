"""The bank's knowledge base and τ²-bench's retrieval configurations over tau2's engines: for each, the
agent's instructions (a template of the data directory's `prompts/`) and its engines, whose tools come
before the bank's own.

| Configuration | Instructions | Engines (retrieval tools) |
|---|---|---|
| `no_knowledge` | `no_knowledge.md` | none |
| `full_kb` | `full_kb.md`, every document inlined | full |
| `golden_retrieval` | `required_docs.md`, the task's documents inlined | golden |
| `bm25`, `bm25_grep` | `classic_rag_bm25_no_grep.md`, `classic_rag_bm25.md` | bm25 (`KB_search`) [+ grep] |
| `grep_only` | `grep_only.md` | grep (`grep`) |
| `terminal_use` | `agentic_search.md` | shell (`shell`, read-only, in process) |
| `openai_embeddings[_grep]`, `qwen_…` | `classic_rag_openai[_no_grep].md`, … | embeddings [+ grep] |
| `alltools`, `alltools-qwen` | `all_tools.md` | bm25, embeddings (`KB_search_bm25`, `…_dense`), shell |

The dense configurations need an embeddings endpoint (`RetrievalConfig.embedder`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tau2 import UserInputError
from tau2.files import read_text_bounded
from tau2.retrieval import (
    Configuration,
    Document,
    Knowledge,
    KnowledgeBase,
    SearchTool,
    Use,
    inline,
    read_documents,
)
from tau2.tau2bench import METADATA_KEY
from tau2.world import EmbedderConfig, RetrievalConfig

from .loader import DATA_DIR

if TYPE_CHECKING:
    from tau2 import Task

PROMPTS_DIR = "prompts"
DOCUMENTS_DIR = "documents"

OPENAI_EMBEDDINGS = EmbedderConfig(model="text-embedding-3-large")
QWEN_EMBEDDINGS = EmbedderConfig(
    model="qwen3-embedding-8b", api_base="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY"
)
ALL_TOOLS = (
    Use(
        "bm25",
        SearchTool("KB_search_bm25", "Search the knowledge base with BM25 (word overlap).", k_argument=True),
    ),
    Use(
        "embeddings",
        SearchTool(
            "KB_search_dense", "Search the knowledge base by meaning (dense embeddings).", k_argument=True
        ),
    ),
    Use("shell"),
)
"""The `alltools` engines: as τ²-bench, each search answers the configured number of best documents, then
the first `k` of them as Python slices a list (k = 20 still gives the configured 10, k = -2 leaves out the
last two)."""

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration.of("no_knowledge", "none", template="no_knowledge.md"),
    Configuration.of("full_kb", "full", template="full_kb.md"),
    Configuration.of("golden_retrieval", "golden", template="required_docs.md"),
    Configuration.of("bm25", "bm25", template="classic_rag_bm25_no_grep.md"),
    Configuration.of("bm25_grep", "bm25", "grep", template="classic_rag_bm25.md"),
    Configuration.of("grep_only", "grep", template="grep_only.md"),
    Configuration.of("terminal_use", "shell", template="agentic_search.md"),
    Configuration.of(
        "openai_embeddings",
        "embeddings",
        template="classic_rag_openai_no_grep.md",
        tau2bench=OPENAI_EMBEDDINGS,
    ),
    Configuration.of(
        "openai_embeddings_grep",
        "embeddings",
        "grep",
        template="classic_rag_openai.md",
        tau2bench=OPENAI_EMBEDDINGS,
    ),
    Configuration.of(
        "qwen_embeddings", "embeddings", template="classic_rag_qwen_no_grep.md", tau2bench=QWEN_EMBEDDINGS
    ),
    Configuration.of(
        "qwen_embeddings_grep",
        "embeddings",
        "grep",
        template="classic_rag_qwen.md",
        tau2bench=QWEN_EMBEDDINGS,
    ),
    Configuration.of(
        "alltools", *ALL_TOOLS, template="all_tools.md", provider="OpenAI API", tau2bench=OPENAI_EMBEDDINGS
    ),
    Configuration.of(
        "alltools-qwen", *ALL_TOOLS, template="all_tools.md", provider="OpenRouter", tau2bench=QWEN_EMBEDDINGS
    ),
)
"""τ²-bench's configurations; `provider` names the dense search's provider in the `alltools` instructions,
`tau2bench` the embeddings τ²-bench's own runs of a dense configuration use (what an imported run
records)."""
DEFAULT = "bm25"
"""The configuration of a run that names none: the offline one closest to τ²-bench's default (which
adds dense search and a shell to BM25)."""
TAU2BENCH_DEFAULT = "alltools"
"""The configuration of a τ²-bench run that names none."""
TAU2BENCH_ALIASES = {"AllTools": "alltools"}


def _directory(data_dir: Path | None) -> Path:
    return DATA_DIR if data_dir is None else Path(data_dir)


def documents(data_dir: Path | None) -> KnowledgeBase:
    """The knowledge base of a data directory: `documents/<id>.json`, each `{id, title, content}`."""
    return read_documents(_directory(data_dir) / DOCUMENTS_DIR)


def required_documents(task: Task) -> list[str]:
    """The documents a task names as needed (its τ²-bench `required_documents`)."""
    kept = task.metadata.get(METADATA_KEY)
    names = kept.get("required_documents") if isinstance(kept, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


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


def instructions(
    chosen: Configuration, config: RetrievalConfig, data_dir: Path | None, placed: Sequence[Document] | None
) -> str:
    """The agent's instructions: the configuration's template, with the documents its engine places (the
    whole knowledge base, or the task's own) and the `alltools` dense search's provider filled in."""
    text = _template(_directory(data_dir), chosen.template)
    if placed is not None:
        if any(use.engine == "full" for use in chosen.uses):
            text = text.replace("{{full_knowledge_base}}", inline(placed))
        else:
            text = text.replace(
                "{{required_documents}}", inline(placed) if placed else "(No documents provided)"
            )
    provider = chosen.details.get("provider")
    if provider is not None:
        embedder = config.embedder.model if config.embedder is not None else "the configured embedding model"
        sentence = (
            f"The `KB_search_dense` tool uses **{provider}** with embedding model `{embedder}` for "
            "dense retrieval."
        )
        text = text.replace("{{all_tools_dense_instructions}}", sentence)
    return text


# τ²-bench results


def recorded(name: str | None, options: Mapping[str, Any]) -> RetrievalConfig:
    """The configuration a τ²-bench results file records (`retrieval_config`, None for τ²-bench's default,
    with `retrieval_config_kwargs`) as ours: its `top_k`, and for a dense configuration the embeddings the
    file names (`embedder_model`, `embedder_api_base`, as tau2 exports them) or else τ²-bench's own."""
    given = TAU2BENCH_DEFAULT if name is None else TAU2BENCH_ALIASES.get(name, name)
    kind = next((found for found in CONFIGURATIONS if found.name == given), None)
    if kind is None:
        raise UserInputError(
            f"retrieval_config: {name!r} is not a retrieval configuration tau2 offers (available: "
            f"{', '.join(found.name for found in CONFIGURATIONS)})"
        )
    embedder = None
    if kind.embeddings:
        model = options.get("embedder_model")
        embedder = (
            {"model": model, "api_base": options.get("embedder_api_base")}
            if model is not None
            else kind.details["tau2bench"]
        )
    try:
        return RetrievalConfig.model_validate(  # strict: `true` or "7" is no number of documents
            {"name": given, "top_k": options.get("top_k", 10), "embedder": embedder}, strict=True
        )
    except ValidationError as error:
        problem = error.errors()[0]
        where = "_".join(str(part) for part in problem["loc"])  # embedder.model: `embedder_model`
        raise UserInputError(f"retrieval_config_kwargs: {where}: {problem['msg']}") from None


KNOWLEDGE = Knowledge(
    documents=documents,
    configurations=CONFIGURATIONS,
    default=DEFAULT,
    instructions=instructions,
    required=required_documents,
    recorded=recorded,
)
"""The bank's knowledge base and the configurations it offers (τ²-bench's, exactly; no engine alone)."""
