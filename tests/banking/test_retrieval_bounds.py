"""Retrieval as τ²-bench bounds it, and bounded where τ²-bench is not: the searches' `k` slices the
configured number of best documents (k = 20 gives the configured 10, k = -2 two fewer), a blank `grep`
pattern finds nothing, and no pattern or command line a model writes can stall a run — regular
expressions match in linear time with Python's meaning, and a command line is split in linear time."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2 import ToolError, get_domain
from tau2.retrieval import Document, KnowledgeBase
from tau2.retrieval._grep import grep
from tau2.retrieval._patterns import UnsupportedPattern, compile_pattern
from tau2.retrieval._shell import VirtualShell, build_tree
from tau2.retrieval._shell_words import split_words
from tau2.testing import ScriptedOpenAIServer
from tau2.world import EmbedderConfig, RetrievalConfig

pytest.importorskip("rank_bm25", reason="the knowledge extra (rank-bm25) is not installed")

PATIENCE = 60.0
"""Seconds a call may take before it counts as never returning (linear work here takes a few at most)."""
BACKTRACKING = r"(\w+\s?)*$"
"""A pattern Python's backtracking `re` never finishes on a long run of words that ends in punctuation."""


def _finishes(work: Callable[[], object]) -> object:
    """`work()`'s value; fails (rather than hangs) when it has not returned within `PATIENCE` seconds."""
    box: list[object] = []
    worker = threading.Thread(target=lambda: box.append(work()), daemon=True)
    worker.start()
    worker.join(PATIENCE)
    assert box, f"did not return within {PATIENCE:.0f} s"
    return box[0]


def _tool(name: str, tool: str, **config: Any) -> Any:
    support = get_domain("banking_knowledge").retrieval
    assert support is not None
    found = support.configure(RetrievalConfig(name=name, **config), None).tools.tool(tool)
    assert found is not None
    return found.function


def _listed(text: str) -> int:
    return text.count("   ID: ")


@pytest.mark.parametrize("search", ["KB_search_bm25", "KB_search_dense"])
def test_k_slices_the_configured_best_documents_as_python_slices_a_list(search: str) -> None:
    with ScriptedOpenAIServer([]) as server:
        embedder = EmbedderConfig(model="scripted", api_base=server.base_url)
        tool = _tool("alltools", search, top_k=4, embedder=embedder)
        assert _listed(tool(None, query="debit card fee")) == 4  # the default k is 10: the configured 4
        assert _listed(tool(None, query="debit card fee", k=20)) == 4
        assert _listed(tool(None, query="debit card fee", k=2)) == 2
        assert _listed(tool(None, query="debit card fee", k=-1)) == 3
        assert tool(None, query="debit card fee", k=-20) == "No relevant documents found."
        assert tool(None, query="debit card fee", k=0) == "No relevant documents found."


@pytest.mark.parametrize("pattern", ["", "   ", "\t"])
def test_a_blank_grep_pattern_finds_nothing(pattern: str) -> None:
    assert _tool("grep_only", "grep")(None, pattern=pattern) == f"No matches found for pattern: {pattern}"


def _wordy(words: int = 60) -> KnowledgeBase:
    """Two documents, the first with a run of `words` words ending in punctuation."""
    run = " ".join(["word"] * words)
    return KnowledgeBase(
        [
            Document(id="doc_a", title="A", content=f"{run}!\nfee fee\n"),
            Document(id="doc_b", title="B", content="fee"),
        ]
    )


def _ranked(knowledge: KnowledgeBase, pattern: str) -> list[tuple[str, float]]:
    return [(document.id, score) for document, score in grep(knowledge, pattern)]


def _in_a_child(code: str) -> str:
    """What `code` prints, run by a child interpreter; fails (rather than hangs) when it has not finished
    within `PATIENCE` seconds. A backtracking `re` keeps the interpreter's lock, so a thread of this process
    could not even notice the time."""
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not return within {PATIENCE:.0f} s")
    assert done.returncode == 0, done.stderr
    return done.stdout


CHILD = """
import json, re
from tau2.retrieval import Document, KnowledgeBase
from tau2.retrieval._grep import grep
from tau2.retrieval._shell import VirtualShell, build_tree
run = " ".join(["word"] * 60)
knowledge = KnowledgeBase([Document(id="doc_a", title="A", content=run + "!\\nfee fee\\n"),
                           Document(id="doc_b", title="B", content="fee")])
"""


def test_a_backtracking_pattern_returns_from_grep_with_pythons_answer() -> None:
    short = _ranked(_wordy(4), BACKTRACKING)  # a short run: Python's own answer, which the long run shares
    content = _wordy(4).documents[0].content
    assert short == [("doc_a", float(len(re.findall(BACKTRACKING, content, re.I)))), ("doc_b", 2.0)]
    code = CHILD + f"print(json.dumps([(d.id, s) for d, s in grep(knowledge, {BACKTRACKING!r})]))"
    assert [tuple(hit) for hit in json.loads(_in_a_child(code))] == short


def test_a_backtracking_pattern_returns_from_the_shells_grep() -> None:
    command = f"grep -cE '{BACKTRACKING}' doc_a.md"
    lines = build_tree(_wordy(4))["doc_a.md"].splitlines()
    expected = sum(1 for line in lines if re.search(BACKTRACKING, line))  # Python's answer on the short run
    code = CHILD + f"print(VirtualShell(build_tree(knowledge)).run({command!r}), end='')"
    assert _in_a_child(code) == f"{expected}\n"


def test_a_pattern_only_backtracking_can_follow_is_a_tool_error_not_a_stall() -> None:
    with pytest.raises(ToolError, match="the pattern uses backreferences"):
        _tool("grep_only", "grep")(None, pattern=r"(\w+)\s\1")
    shell = VirtualShell(build_tree(_wordy()))
    assert shell.run(r"grep -E '(\w+) \1' doc_a.md").startswith("Error (exit code 2): grep: the pattern uses")
    knowledge = _wordy()
    assert _ranked(knowledge, r"(fee)\s\1") == _ranked(knowledge, r"fee\sfee")  # no choice: Python's re


def test_a_long_command_line_is_read_in_linear_time() -> None:
    shell = VirtualShell(build_tree(_wordy()))
    word = "x" * 2_000_000  # a word shlex builds a character at a time: hours
    assert _finishes(lambda: shell.run(f"echo {word} | wc -c")) == f"{len(word) + 1}\n"
    options = " ".join(f"-{number}" for number in range(200_000))  # each option once: quadratic, hours
    assert _finishes(lambda: shell.run(f"ls {options} doc_b.md")) == "doc_b.md\n"


COMMAND = st.text(alphabet="ab |&;<>'\"\\#\n\t-", max_size=16)


@given(COMMAND)
def test_a_command_line_splits_into_the_words_shlex_gives(command: str) -> None:
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;<>")
    lexer.whitespace_split = True
    try:
        expected: object = list(lexer)
    except ValueError as error:
        expected = str(error)
    try:
        got: object = split_words(command)
    except ValueError as error:
        got = str(error)
    assert got == expected


ATOMS = [
    "a",
    "k",
    "s",
    "ſ",
    "K",
    "[a-k]",
    "[^s]",
    r"\w",
    r"\W",
    r"\s",
    r"\d",
    ".",
    "x*",
    "(?:a|k)",
    "k+",
    "^",
    r"\Z",
    "(?-i:k)",
    "[^a-z]",
    r"(?m:$)",
    "a{2}",
]
TEXT = st.text(alphabet="aAkKſsSß ıİiI\u212a_1.\nµΣσς", max_size=12)


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3),
    TEXT,
    st.sampled_from([0, re.IGNORECASE, re.IGNORECASE | re.ASCII, re.MULTILINE]),
)
def test_a_translated_pattern_matches_what_python_matches(atoms: list[str], text: str, flags: int) -> None:
    pattern = "".join(atoms)
    try:
        linear = compile_pattern(pattern, flags)
    except UnsupportedPattern:
        return
    assert linear.matches(text) == [match.group(0) for match in re.finditer(pattern, text, flags)]
    assert linear.search(text) is (re.search(pattern, text, flags) is not None)
