"""Retrieval engines (`tau2.retrieval`): every registered engine keeps the interface's promises, engines are
found as every plugin is (registered, installed, referenced), `check_engine` catches each broken promise,
a knowledge domain's declaration offers what it names, and the retrieval default is settled once."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2 import EpisodeConfig, Side, Task, get_domain, load_task_file
from tau2.episode import Episode
from tau2.errors import UserInputError
from tau2.retrieval import (
    AgentTool,
    Configuration,
    Document,
    Engine,
    Hit,
    Knowledge,
    KnowledgeBase,
    Retriever,
    Use,
    available_engines,
    check_engine,
    describe_engines,
    format_hits,
    get_engine,
    register_engine,
)
from tau2.tasks import resolve_retrieval
from tau2.testing import ScriptedOpenAIServer
from tau2.world import EmbedderConfig, RetrievalConfig

pytest.importorskip("rank_bm25", reason="the knowledge extra (rank-bm25) is not installed")

DOCUMENTS = KnowledgeBase(
    [
        Document(id="doc_a", title="Fees", content="a card fee and a wire fee"),
        Document(id="doc_b", title="Cards", content="lost card replacement card"),
        Document(id="doc_c", title="Savings", content="savings interest every month"),
        Document(id="doc_d", title="Wires", content="wire transfer abroad fee"),
    ]
)


def test_every_registered_engine_keeps_the_interfaces_promises() -> None:
    names = available_engines()
    assert {"none", "full", "golden", "bm25", "grep", "shell", "embeddings"} <= set(names)
    with ScriptedOpenAIServer([]) as server:
        embedder = EmbedderConfig(model="scripted", api_base=server.base_url)
        problems = {name: check_engine(name, embedder=embedder) for name in names}
    assert problems == {name: [] for name in names}


WORDS = st.sampled_from(["card", "fee", "wire", "lost", "savings", "the", "a", "interest", "month"])


@settings(max_examples=40, deadline=None)
@given(
    contents=st.lists(st.lists(WORDS, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=12),
    query=st.lists(WORDS, max_size=4).map(" ".join),
    engine=st.sampled_from(["bm25", "grep"]),
)
def test_rankings_are_deterministic_bounded_best_first_and_prefixes_on_any_knowledge_base(
    contents: list[str], query: str, engine: str
) -> None:
    knowledge = KnowledgeBase(
        Document(id=f"doc_{number:02d}", title=f"T{number}", content=content)
        for number, content in enumerate(contents)
    )
    assert check_engine(engine, knowledge, queries=[query, query.upper()]) == []


class _Listed(Retriever):
    """Every document with a fixed score, in id order: the base the broken engines below bend."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self.documents = knowledge.documents

    def search(self, query: str, k: int) -> list[Hit]:
        hits = [
            Hit(document, float(len(self.documents) - number))
            for number, document in enumerate(self.documents)
        ]
        return hits[:k] if query.strip() else []


class _Flaky(_Listed):
    def __init__(self, knowledge: KnowledgeBase) -> None:
        super().__init__(knowledge)
        self._calls = itertools.count()

    def search(self, query: str, k: int) -> list[Hit]:
        hits = super().search(query, k)
        return hits if next(self._calls) % 2 else [Hit(hit.document, hit.score + 1) for hit in hits]


class _TooMany(_Listed):
    def search(self, query: str, k: int) -> list[Hit]:
        return super().search(query, 1000)


class _WorstFirst(_Listed):
    def search(self, query: str, k: int) -> list[Hit]:
        return list(reversed(super().search(query, k)))


class _NoPrefix(_Listed):
    def search(self, query: str, k: int) -> list[Hit]:
        hits = super().search(query, 1000)
        return (hits[1:] if k < 3 else hits)[:k]


class _Stranger(_Listed):
    def search(self, query: str, k: int) -> list[Hit]:
        return [Hit(Document(id="elsewhere", title="", content=""), 1.0)][:k] if query.strip() else []


class _Twice(_Listed):
    def search(self, query: str, k: int) -> list[Hit]:
        hits = super().search(query, 1)
        return (hits * 2)[:k]


class _Undocumented(Retriever):
    def tools(self, top_k: int) -> list[AgentTool]:
        def lookup(state: object, words: str) -> str:
            """Look words up."""
            return words

        return [lookup]


def _engine(retriever: type[Retriever], **fields: object) -> Engine:
    declared: dict[str, object] = {"description": "an engine that breaks one promise", **fields}
    return Engine(
        name="broken",
        build=lambda knowledge, embedder: (
            retriever(knowledge) if issubclass(retriever, _Listed) else retriever()
        ),
        **declared,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("retriever", "fields", "problem"),
    [
        (_Flaky, {}, "not deterministic"),
        (_TooMany, {}, "with k=1: 9 documents"),
        (_WorstFirst, {}, "scores are not numbers, best first"),
        (_NoPrefix, {}, "k=1 is not the first 1 of k=11"),
        (_Stranger, {}, "a document that is not in the knowledge base"),
        (_Twice, {}, "a document twice"),
        (_Listed, {"tools": ("grep",)}, "its index offers the tools [], the engine declares ['grep']"),
        (_Undocumented, {"tools": ("lookup",), "search_tool": False}, "argument 'words' is not documented"),
        (_Listed, {"description": "two\nlines"}, "the description must be one line"),
    ],
)
def test_the_checker_reports_each_broken_promise(
    retriever: type[Retriever], fields: dict[str, object], problem: str
) -> None:
    problems = check_engine(_engine(retriever, **fields))
    assert any(problem in line for line in problems), problems
    assert check_engine(_engine(_Listed)) == []  # the base itself keeps every promise


def test_an_engine_that_needs_embeddings_is_checked_with_an_endpoint_only() -> None:
    assert check_engine("embeddings") == [
        "the engine needs embeddings: check it with an embedder (an EmbedderConfig)"
    ]


EXTENDING = Path(__file__).resolve().parents[1] / "docs" / "extending.md"


def _documented_engine() -> str:
    """The engine file docs/extending.md shows (the Python block after "A file `titles.py`")."""
    text = EXTENDING.read_text(encoding="utf-8")
    block = text[text.index("A file `titles.py`") :].split("```python\n", 1)[1]
    return block.split("```", 1)[0]


def test_an_engine_from_outside_is_registered_installed_or_referenced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "title_engine.py"
    source.write_text(_documented_engine(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    referenced = get_engine("title_engine.py:TITLES")
    assert referenced.name == "titles" and check_engine(referenced) == []
    assert [hit.document.id for hit in referenced.build(DOCUMENTS, None).search("cards", 5)] == ["doc_b"]
    # a reference is found under what named it only: never listed, never standing in for an installed engine
    assert "title_engine.py:TITLES" not in available_engines()
    assert "titles" not in available_engines() or get_engine("titles") is not referenced
    registered = register_engine(
        Engine("titles-in-code", "Registered in code.", build=lambda k, e: Retriever())
    )
    assert get_engine("titles-in-code") is registered


def test_unknown_and_wrong_engines_are_one_line() -> None:
    with pytest.raises(UserInputError, match=r"unknown retrieval engine 'bm26' \(available: .*bm25.*grep"):
        get_engine("bm26")
    with pytest.raises(
        UserInputError, match="retrieval engine 'json:dumps' names a function, not a tau2 Engine"
    ):
        get_engine("json:dumps")


def _instructions(
    chosen: Configuration, config: RetrievalConfig, data_dir: Path | None, placed: object
) -> str:
    return f"Answer from the documents.\n\n{describe_engines(chosen, placed)}"  # type: ignore[arg-type]


KNOWLEDGE = Knowledge(
    documents=lambda data_dir: DOCUMENTS,
    configurations=(Configuration.of("search_and_grep", "bm25", "grep"),),
    default="search_and_grep",
    instructions=_instructions,
    required=lambda task: ["Cards"],
    engines=("full", "golden", "shell"),
)


def test_a_knowledge_domain_offers_its_configurations_and_the_engines_it_names() -> None:
    assert list(KNOWLEDGE.offered()) == ["search_and_grep", "full", "golden", "shell"]
    assert KNOWLEDGE.tool_names() == {"KB_search", "grep", "shell"}
    tools = KNOWLEDGE.toolset(RetrievalConfig(name="search_and_grep", top_k=2), None)
    search = next(iter(tools)).function
    assert [tool.name for tool in tools] == ["KB_search", "grep"]
    assert search(None, query="card fee") == format_hits(
        get_engine("bm25").build(DOCUMENTS, None).search("card fee", 2)
    )
    with pytest.raises(
        UserInputError, match=r"--retrieval bm25: not a retrieval configuration \(available: search"
    ):
        KNOWLEDGE.toolset(RetrievalConfig(name="bm25"), None)
    with pytest.raises(UserInputError, match="the shell configuration does not search by embeddings"):
        KNOWLEDGE.configuration(RetrievalConfig(name="shell", embedder=EmbedderConfig(model="m")))


def _a_task() -> Task:
    return load_task_file(Path(get_domain("mock").default_suite or ""))[0]


def test_placed_documents_are_in_the_instructions_and_count_as_shown() -> None:
    task = _a_task()
    full = KNOWLEDGE.policy(RetrievalConfig(name="full"), None, None)
    assert full.count("\n\n---\n\n") == 3 and "## Savings\n\nsavings interest every month" in full
    assert "## " not in KNOWLEDGE.policy(RetrievalConfig(name="golden"), None, None)  # no task: none placed
    golden = KNOWLEDGE.policy(RetrievalConfig(name="golden"), None, task)
    assert golden.endswith("## Cards\n\nlost card replacement card")
    assert KNOWLEDGE.retrieved(RetrievalConfig(name="golden"), None, task, []) == ["doc_b"]
    assert "`shell` runs read-only commands" in KNOWLEDGE.policy(RetrievalConfig(name="shell"), None, None)
    shell = RetrievalConfig(name="shell")
    calls = [("shell", {"command": "cat doc_c.md"}, "…"), ("shell", {"command": "ls"}, "doc_a.md\ndoc_b.md")]
    assert KNOWLEDGE.retrieved(shell, None, task, calls) == ["doc_c"]


def test_search_answers_count_what_they_listed() -> None:
    config = RetrievalConfig(name="search_and_grep", top_k=2)
    search = KNOWLEDGE.toolset(config, None)
    answer = next(iter(search)).function(None, query="wire fee")
    listed = [hit.document.id for hit in get_engine("bm25").build(DOCUMENTS, None).search("wire fee", 2)]
    assert (
        KNOWLEDGE.retrieved(config, None, _a_task(), [("KB_search", {"query": "wire fee"}, answer)]) == listed
    )


def test_the_declaration_becomes_the_worlds_support_with_its_default_declared_once() -> None:
    support = KNOWLEDGE.support(lambda config, data_dir: get_domain("mock"))
    assert support.default == RetrievalConfig(name="search_and_grep")
    assert support.recorded(None, {"top_k": 3}) == RetrievalConfig(name="search_and_grep", top_k=3)
    assert support.recorded("shell", {}) == RetrievalConfig(name="shell")
    with pytest.raises(UserInputError, match="retrieval_config: 'bm25' is not a retrieval configuration"):
        support.recorded("bm25", {})
    with pytest.raises(UserInputError, match="retrieval_config_kwargs: top_k: Input should be a valid"):
        support.recorded("shell", {"top_k": "7"})
    assert support.names == ("search_and_grep", "full", "golden", "shell")
    with pytest.raises(ValueError, match="'nowhere' is not offered"):
        Knowledge(
            documents=lambda data_dir: DOCUMENTS,
            configurations=(Configuration.of("only", Use("none")),),
            default="nowhere",
            instructions=_instructions,
            required=lambda task: [],
        ).support(lambda config, data_dir: get_domain("mock"))


def test_the_default_is_settled_where_an_episode_is_configured() -> None:
    bank = get_domain("banking_knowledge")
    assert bank.retrieval is not None
    assert resolve_retrieval(bank, None) == bank.retrieval.default == RetrievalConfig(name="bm25")
    chosen = RetrievalConfig(name="grep_only")
    assert resolve_retrieval(bank, chosen) is chosen
    assert resolve_retrieval(get_domain("mock"), None) is None
    task = load_task_file(Path(bank.default_suite or ""))[0]
    episode = Episode(task, EpisodeConfig(seed=0))
    assert episode.contexts[Side.AGENT].config.retrieval == RetrievalConfig(name="bm25")
    assert "KB_search" in [schema["function"]["name"] for schema in episode.contexts[Side.AGENT].tool_schemas]
