"""The retrieval configurations: BM25 results equal to the reference library's own, grep, the in-process
shell, dense search through an OpenAI-compatible endpoint (the scripted server), the instructions each
configuration builds, the tools it offers, and the recall diagnostic."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tau2 import Task, UserInputError, get_domain, load_task_file
from tau2.domains.banking_knowledge import DATA_DIR, DEFAULT_TASKS
from tau2.retrieval import Document, KnowledgeBase, get_engine, read_documents
from tau2.retrieval._bm25 import BM25Search
from tau2.retrieval._grep import grep
from tau2.tasks import RetrievalSupport
from tau2.testing import ScriptedOpenAIServer, embedding_of
from tau2.world import EmbedderConfig, RetrievalConfig

rank_bm25 = pytest.importorskip("rank_bm25", reason="the knowledge extra (rank-bm25) is not installed")
numpy = pytest.importorskip("numpy")


def knowledge_base(data_dir: Path) -> KnowledgeBase:
    """The knowledge base of a banking data directory (its `documents/`)."""
    return read_documents(data_dir / "documents")


def _support() -> RetrievalSupport:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    return support


policy, retrieved_documents = _support().policy, _support().retrieved

QUERIES = [
    "lost debit card replacement",
    "How do I open a savings account?",
    "credit limit increase eligibility payment history",
    "dispute duplicate charge",
    "Business Gold Rewards Card annual fee",
    "the and of to",  # terms in most documents: their IDF sits at the ε floor
    "wire transfer fee international",
    "zzzz unknownterm",
]


def reference_ranking(knowledge: KnowledgeBase, query: str, k: int = 10) -> list[tuple[str, str]]:
    """What rank-bm25 itself ranks: Okapi defaults, contents lower-cased and split on whitespace, every
    document scored, a stable sort by descending score (so equal scores keep id order)."""
    index = rank_bm25.BM25Okapi([document.content.lower().split() for document in knowledge.documents])
    scores = index.get_scores(query.lower().split())
    order = sorted(range(len(scores)), key=lambda position: -scores[position])[:k]
    return [(knowledge.documents[position].id, f"{scores[position]:.4f}") for position in order]


def our_ranking(knowledge: KnowledgeBase, query: str, k: int = 10) -> list[tuple[str, str]]:
    return [(document.id, f"{score:.4f}") for document, score in BM25Search(knowledge).search(query, k)]


@pytest.mark.parametrize("query", QUERIES)
def test_bm25_equals_the_reference_library_on_the_official_knowledge_base(
    banking_data: Path, query: str
) -> None:
    knowledge = knowledge_base(banking_data)
    assert len(knowledge.documents) == 698
    assert our_ranking(knowledge, query) == reference_ranking(knowledge, query)


@pytest.mark.parametrize("query", QUERIES[:3])
def test_bm25_equals_the_reference_library_on_our_knowledge_base(query: str) -> None:
    knowledge = knowledge_base(DATA_DIR)
    assert our_ranking(knowledge, query, 5) == reference_ranking(knowledge, query, 5)


def test_bm25_scores_are_the_librarys_to_the_last_bit(banking_data: Path) -> None:
    knowledge = knowledge_base(banking_data)
    search = BM25Search(knowledge)
    index = rank_bm25.BM25Okapi([document.content.lower().split() for document in knowledge.documents])
    query = "card card fee waiver for the customer"  # a repeated term counts twice, as in the library
    assert numpy.array_equal(search.scores(query), index.get_scores(query.lower().split()))


def test_equal_scores_rank_by_document_id_and_titles_are_not_indexed() -> None:
    documents = [Document(id=f"doc_{name}", title="savings", content="same words") for name in "cab"]
    documents.append(Document(id="doc_d", title="other", content="savings account"))
    documents.extend(Document(id=f"doc_filler_{n}", title="t", content=f"filler text {n}") for n in range(6))
    search = BM25Search(KnowledgeBase(documents))
    assert [document.id for document, _ in search.search("same", 3)] == ["doc_a", "doc_b", "doc_c"]
    assert [document.id for document, _ in search.search("savings", 2)] == ["doc_d", "doc_a"]


def test_a_blank_query_finds_nothing() -> None:
    tool = _tool("bm25", "KB_search")
    assert tool(None, query="   ") == "No relevant documents found."


def test_kb_search_answers_in_the_reference_format() -> None:
    text = _tool("bm25", "KB_search")(None, query="lost debit card")
    first = text.split("\n\n", 1)[0]
    assert first.startswith(
        "1. Lost or Stolen Debit Cards\n   ID: doc_debit_lost_or_stolen_card_001\n   Score: "
    )
    assert text.count("   ID: ") == 10
    small = _tool("bm25", "KB_search", top_k=2)(None, query="lost debit card")
    assert small.count("   ID: ") == 2


def test_grep_ranks_by_match_count_and_searches_bad_expressions_literally() -> None:
    knowledge = knowledge_base(DATA_DIR)
    hits = grep(knowledge, "debit CARD")
    counts = [score for _, score in hits]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 2
    assert grep(knowledge, "fee (") == grep(knowledge, r"fee \(")
    tool = _tool("grep_only", "grep")
    assert (
        tool(None, pattern="no such phrase anywhere")
        == "No matches found for pattern: no such phrase anywhere"
    )


def test_the_shell_reads_the_tree_and_nothing_else() -> None:
    shell = _tool("terminal_use", "shell")
    listing = shell(None, command="ls")
    assert listing.splitlines()[0] == "INDEX.md" and "doc_debit_lost_or_stolen_card_001.md" in listing
    assert (
        shell(None, command="head -n 1 doc_debit_lost_or_stolen_card_001.md")
        == "# Lost or Stolen Debit Cards\n"
    )
    assert "**Total documents:** 14" in shell(None, command="cat INDEX.md")
    found = shell(None, command="grep -ril 'deposit_check_3847' . | sort")
    assert found == "./doc_deposits_mobile_check_001.md\n"
    assert shell(None, command="grep -c zzz INDEX.md") == "No matches found."
    assert shell(None, command="find . -name '*savings*' | wc -l") == "2\n"
    assert shell(None, command="cat ../db.json").startswith(
        "Error (exit code 1): Error: Command blocked - contains '..'"
    )
    assert "absolute path: /etc/passwd" in shell(None, command="cat /etc/passwd")
    assert "read-only" in shell(None, command="echo hi > notes.md")
    assert (
        shell(None, command="python -c 1")
        == "Error (exit code 127): bash: line 1: python: command not found\n"
    )
    assert (
        shell(None, command="cat missing.md")
        == "Error (exit code 1): cat: missing.md: No such file or directory\n"
    )


def test_dense_search_ranks_by_cosine_similarity_through_the_endpoint() -> None:
    knowledge = knowledge_base(DATA_DIR)
    with ScriptedOpenAIServer([]) as server:
        embedder = EmbedderConfig(model="scripted", api_base=server.base_url)
        tool = _tool("openai_embeddings_grep", "KB_search", embedder=embedder)
        text = tool(None, query="deposit a check from my phone")
        requests = server.embedding_requests
    query = numpy.array(embedding_of("deposit a check from my phone"))
    matrix = numpy.array([embedding_of(document.content) for document in knowledge.documents])
    scores = matrix @ query / (numpy.linalg.norm(matrix, axis=1) * numpy.linalg.norm(query))
    best = knowledge.documents[int(numpy.argmax(scores))]
    assert text.startswith(f"1. {best.title}\n   ID: {best.id}\n   Score: {float(scores.max()):.4f}")
    assert requests == 2  # the documents once (one batch), then the query


def test_dense_configurations_need_an_embedder_and_others_refuse_one() -> None:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    with pytest.raises(UserInputError, match="give --embedding-model"):
        support.configure(RetrievalConfig(name="qwen_embeddings"), None)
    with pytest.raises(UserInputError, match="does not search by embeddings"):
        support.configure(RetrievalConfig(name="bm25", embedder=EmbedderConfig(model="m")), None)
    with pytest.raises(UserInputError, match="not a retrieval configuration"):
        support.configure(RetrievalConfig(name="bm26"), None)


def test_an_unreachable_endpoint_is_one_line_when_the_run_starts() -> None:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    config = RetrievalConfig(
        name="openai_embeddings",
        embedder=EmbedderConfig(model="m", api_base="http://127.0.0.1:9/v1", timeout_s=2),
    )
    with pytest.raises(UserInputError, match="embedding the knowledge base failed"):
        support.configure(config, None)


def test_a_missing_bm25_library_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rank_bm25", None)
    with pytest.raises(UserInputError, match=r"pip install -e '\.\[knowledge\]' \(in the tau2 checkout\)"):
        get_engine("bm25").build(knowledge_base(DATA_DIR), None)


@pytest.mark.parametrize(
    ("name", "tools"),
    [
        ("no_knowledge", []),
        ("full_kb", []),
        ("golden_retrieval", []),
        ("bm25", ["KB_search"]),
        ("bm25_grep", ["KB_search", "grep"]),
        ("grep_only", ["grep"]),
        ("terminal_use", ["shell"]),
    ],
)
def test_each_configuration_puts_its_retrieval_tools_first(name: str, tools: list[str]) -> None:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    offered = [tool.name for tool in support.configure(RetrievalConfig(name=name), None).tools.tools()]
    assert offered[: len(tools) + 1] == [*tools, "transfer_to_human_agents"]


@pytest.mark.parametrize("name", ["bm25", "bm25_grep", "grep_only", "terminal_use"])
def test_a_replay_keeps_the_answers_of_retrieval_tools_only(name: str) -> None:
    """The tools a configuration adds are the ones an import keeps the recorded answers of; none of the
    bank's own tools is among them, so every call that can change the database is replayed."""
    domain = get_domain("banking_knowledge")
    assert domain.retrieval is not None
    configured = domain.retrieval.configure(RetrievalConfig(name=name), None)
    bank = {tool.name for tool in domain.tools.tools()}
    added = {tool.name for tool in configured.tools.tools()} - bank
    assert added and added <= domain.retrieval.tools
    assert not bank & domain.retrieval.tools


def _task(task_id: str) -> Task:
    return next(task for task in load_task_file(DEFAULT_TASKS) if task.id == task_id)


def test_instructions_follow_the_configuration() -> None:
    task = _task("task_002")
    golden = policy(RetrievalConfig(name="golden_retrieval"), None, task)
    assert "## Lost or Stolen Debit Cards" in golden and "## Mobile Check Deposit" not in golden
    assert "{{" not in golden
    full = policy(RetrievalConfig(name="full_kb"), None, task)
    assert full.count("\n\n---\n\n") == 13 and "## Mobile Check Deposit" in full
    none = policy(RetrievalConfig(name="no_knowledge"), None, task)
    assert "Lost or Stolen" not in none and "`unlock_discoverable_agent_tool`" in none
    assert "{{required_documents}}" in policy(RetrievalConfig(name="golden_retrieval"), None, None)


@pytest.mark.parametrize(
    "name", ["no_knowledge", "full_kb", "bm25", "bm25_grep", "grep_only", "terminal_use"]
)
def test_the_official_templates_are_filled_in(banking_data: Path, name: str) -> None:
    text = policy(RetrievalConfig(name=name), banking_data, None)
    assert "Rho-Bank" in text and "{{" not in text


def test_recall_counts_what_searches_listed_and_shell_commands_read() -> None:
    task = _task("task_002")
    config = RetrievalConfig(name="bm25")
    search = _tool("bm25", "KB_search")(None, query="lost stolen debit card replacement close")
    calls: list[tuple[str, dict[str, Any], str]] = [("KB_search", {"query": "x"}, search)]
    seen = retrieved_documents(config, None, task, calls)
    assert "doc_debit_lost_or_stolen_card_001" in seen and len(seen) == 10
    shell_calls: list[tuple[str, dict[str, Any], str]] = [
        ("shell", {"command": "ls"}, _tool("terminal_use", "shell")(None, command="ls")),
        ("shell", {"command": "cat doc_debit_card_delivery_fees_001.md"}, "…"),
    ]
    shell_config = RetrievalConfig(name="terminal_use")
    assert retrieved_documents(shell_config, None, task, shell_calls) == ["doc_debit_card_delivery_fees_001"]
    golden = retrieved_documents(RetrievalConfig(name="golden_retrieval"), None, task, [])
    assert golden == [
        "doc_service_identity_verification_001",
        "doc_debit_lost_or_stolen_card_001",
        "doc_debit_card_delivery_fees_001",
    ]


def _tool(name: str, tool: str, *, top_k: int = 10, embedder: EmbedderConfig | None = None) -> Any:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    domain = support.configure(RetrievalConfig(name=name, top_k=top_k, embedder=embedder), None)
    found = domain.tools.tool(tool)
    assert found is not None
    return found.function


@pytest.mark.parametrize("name", ["bm25_grep", "terminal_use"])
def test_a_configured_domain_passes_the_domain_checker(name: str) -> None:
    from tau2 import check_domain

    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    assert check_domain(support.configure(RetrievalConfig(name=name), None)) == []
