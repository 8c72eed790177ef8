"""A checker for retrieval engines, in the spirit of `check_domain`: it runs an engine on a small knowledge
base and reports, one line each, where it breaks the interface's promises — the same answer every time
(and from a second index), at most `k` documents of the knowledge base, best first and none twice, a
smaller `k` answering the first documents of a larger one, and tools the agent can read and call."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from tau2.errors import ToolError
from tau2.retrieval._catalog import get_engine
from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.retrieval._engine import AgentTool, Engine, Hit, Retriever, SearchTool, search_tool
from tau2.world import EmbedderConfig, Side, Tool, ToolKind

SAMPLE = KnowledgeBase(
    Document(id=f"doc_{number:02d}", title=title, content=content)
    for number, (title, content) in enumerate(
        [
            ("Lost cards", "Report a lost card at once; the card is blocked and a new card is sent."),
            ("Card fees", "A replacement card costs five dollars; express delivery of a card costs more."),
            ("Savings accounts", "A savings account earns interest every month on the balance."),
            (
                "Opening an account",
                "To open an account, verify the customer's identity, then the account opens.",
            ),
            ("Wire transfers", "A wire transfer abroad costs a fee; wire transfers at home are free."),
            ("Disputes", "Dispute a charge within sixty days; the charge is held while it is reviewed."),
            ("Credit limits", "A credit limit increase needs six months of payments made on time."),
            ("Closing an account", "Close an account after its balance is zero and every card is returned."),
            (
                "Identity checks",
                "Identity is verified by date of birth and the last four digits of the card.",
            ),
        ],
        start=1,
    )
)
"""The knowledge base engines are checked on unless given another: a handful of short bank documents."""

QUERIES = (
    "card",
    "lost card replacement",
    "account balance interest",
    "wire transfer fee",
    "",
    "   ",
    "zzqx",
)
"""Queries the search promises are checked on: words many, some or no documents hold, and blank ones."""


def check_engine(
    engine: Engine | str,
    knowledge: KnowledgeBase | None = None,
    *,
    embedder: EmbedderConfig | None = None,
    queries: Sequence[str] = QUERIES,
) -> list[str]:
    """Problems with `engine` (or the engine registered under that name), one line each; empty when it
    keeps the interface's promises on `knowledge` (default: a small sample). An engine that needs
    embeddings is checked only with an `embedder`."""
    try:
        checked = get_engine(engine) if isinstance(engine, str) else engine
    except Exception as error:  # the check reports, it never raises
        return [f"{type(error).__name__}: {error}"]
    documents = knowledge if knowledge is not None else SAMPLE
    problems = _declaration_problems(checked)
    if checked.embeddings and embedder is None:
        return [*problems, "the engine needs embeddings: check it with an embedder (an EmbedderConfig)"]
    try:
        first = checked.build(documents, embedder)
        second = checked.build(documents, embedder)
    except Exception as error:
        return [*problems, f"building its index failed: {type(error).__name__}: {error}"]
    problems.extend(_search_problems(first, second, documents, queries))
    problems.extend(_tool_problems(checked, first, documents, queries))
    problems.extend(_placement_problems(checked, documents))
    return problems


def _declaration_problems(engine: Engine) -> list[str]:
    problems = []
    if not engine.name.strip():
        problems.append("the engine has no name")
    if not engine.description.strip() or "\n" in engine.description:
        problems.append(f"engine {engine.name!r}: the description must be one line")
    if len(set(engine.tool_names())) != len(engine.tool_names()):
        problems.append(f"engine {engine.name!r}: two tools share a name: {list(engine.tool_names())}")
    return problems


def _search_problems(
    first: Retriever, second: Retriever, knowledge: KnowledgeBase, queries: Sequence[str]
) -> list[str]:
    problems: list[str] = []
    sizes = sorted({1, 2, 3, len(knowledge.documents), len(knowledge.documents) + 2})
    for query in queries:
        try:
            answers = {k: first.search(query, k) for k in sizes}
            again = first.search(query, sizes[-1])
            rebuilt = second.search(query, sizes[-1])
        except Exception as error:
            problems.append(f"search {query!r} failed: {type(error).__name__}: {error}")
            continue
        widest = answers[sizes[-1]]
        if again != widest or rebuilt != widest:
            problems.append(f"search {query!r}: not deterministic (asked again, or of a second index)")
        for k, hits in answers.items():
            problems.extend(_ranking_problems(query, k, hits, knowledge))
            if hits != widest[:k]:
                problems.append(f"search {query!r}: k={k} is not the first {k} of k={sizes[-1]}")
    return problems


def _ranking_problems(query: str, k: int, hits: list[Hit], knowledge: KnowledgeBase) -> list[str]:
    where = f"search {query!r} with k={k}"
    if not all(isinstance(hit, tuple) and len(hit) == 2 for hit in hits):
        return [f"{where}: answers something other than (document, score) hits"]
    problems = []
    if len(hits) > k:
        problems.append(f"{where}: {len(hits)} documents")
    ids = [hit[0].id if isinstance(hit[0], Document) else None for hit in hits]
    if any(
        found is None or knowledge.by_id.get(found) != hit[0] for found, hit in zip(ids, hits, strict=True)
    ):
        problems.append(f"{where}: a document that is not in the knowledge base")
    if len(set(ids)) != len(ids):
        problems.append(f"{where}: a document twice")
    scores = [hit[1] for hit in hits]
    if not all(isinstance(score, float) for score in scores) or scores != sorted(scores, reverse=True):
        problems.append(f"{where}: scores are not numbers, best first: {scores}")
    return problems


def _tool_problems(
    engine: Engine, retriever: Retriever, knowledge: KnowledgeBase, queries: Sequence[str]
) -> list[str]:
    try:
        own = retriever.tools(3)
    except Exception as error:
        return [f"its tools could not be made: {type(error).__name__}: {error}"]
    names = [getattr(tool, "__name__", "?") for tool in own]
    if tuple(names) != engine.tools:
        return [f"its index offers the tools {names}, the engine declares {list(engine.tools)}"]
    tools = [*([search_tool(retriever.search, 3, SearchTool())] if engine.search_tool else []), *own]
    problems: list[str] = []
    for function in tools:
        problems.extend(_callable_problems(engine, function, knowledge, next(iter(queries), "card")))
    return problems


def _callable_problems(engine: Engine, function: AgentTool, knowledge: KnowledgeBase, word: str) -> list[str]:
    """A tool the agent can read (described, every argument documented) and call with words."""
    name = getattr(function, "__name__", "?")
    try:
        tool = Tool.from_function(function, Side.AGENT, ToolKind.READ)
        properties = tool.json_schema()["function"]["parameters"].get("properties", {})
    except Exception as error:
        return [f"tool {name!r} is not well formed: {type(error).__name__}: {error}"]
    problems = []
    if not tool.description:
        problems.append(f"tool {name!r} has no description (its docstring is what the agent reads)")
    problems.extend(
        f"tool {name!r}: argument {argument!r} is not documented under Args:"
        for argument, schema in properties.items()
        if not schema.get("description")
    )
    parameters = list(inspect.signature(function).parameters.values())[1:]
    arguments = {
        parameter.name: word
        for parameter in parameters
        if parameter.default is inspect.Parameter.empty
        and properties.get(parameter.name, {}).get("type") == "string"
    }
    try:
        answer = function(None, **arguments)
    except ToolError:
        return problems  # a refusal the agent reads
    except Exception as error:
        return [*problems, f"tool {name!r} failed on {arguments}: {type(error).__name__}: {error}"]
    if not isinstance(answer, str):
        return [*problems, f"tool {name!r} answers a {type(answer).__name__}, not text"]
    shown = list(engine.shown(knowledge, name, arguments, answer))
    if any(found not in knowledge.by_id for found in shown):
        problems.append(f"tool {name!r}: the documents it showed are not all in the knowledge base: {shown}")
    return problems


def _placement_problems(engine: Engine, knowledge: KnowledgeBase) -> list[str]:
    if engine.placed is None:
        return []
    problems = []
    for required in (None, knowledge.documents[:2]):
        try:
            placed = engine.placed(knowledge, required)
        except Exception as error:
            return [f"placing documents failed: {type(error).__name__}: {error}"]
        if placed is not None and any(knowledge.by_id.get(document.id) != document for document in placed):
            problems.append("it places documents that are not in the knowledge base")
    return problems
