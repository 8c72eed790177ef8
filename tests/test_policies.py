"""The telecom policy documents name only real tools, each with the seat that owns it (the extended part:
the tools of the telecom_extended domain)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tau2 import Side, ToolTable, get_domain

POLICY_DIR = Path(__file__).resolve().parents[1] / "domains" / "telecom" / "policies"
TOOL_SPAN = re.compile(r"`(crm|phone)\.([a-z_]+)`")
CODE_SPAN = re.compile(r"`([^`]+)`")
SEAT_OF_PREFIX = {"crm": Side.AGENT, "phone": Side.USER}
DOCUMENTS = sorted(POLICY_DIR.glob("*.md"))


def tools_of(path: Path) -> ToolTable:
    """The tool table of the domain whose policy the document is part of."""
    return get_domain("telecom_extended" if path.stem.startswith("extended") else "telecom").tools


def test_all_six_documents_exist() -> None:
    names = {path.stem for path in DOCUMENTS}
    for stem in ("main", "tech_support_manual", "tech_support_workflow"):
        assert {stem, f"{stem}_solo"} <= names


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_every_named_tool_exists_on_the_named_seat(path: Path) -> None:
    tools = tools_of(path)
    text = path.read_text(encoding="utf-8")
    mentions = TOOL_SPAN.findall(text)
    assert mentions, f"{path.name} names no tools"
    for prefix, name in mentions:
        tool = tools.tool(name)
        assert tool is not None, f"{path.name}: `{prefix}.{name}` is not a tool"
        assert tool.side is SEAT_OF_PREFIX[prefix], f"{path.name}: `{prefix}.{name}` belongs to {tool.side}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_no_tool_is_named_without_its_seat(path: Path) -> None:
    tools = tools_of(path)
    env_names = {f.name for side in Side for f in tools.env_functions(side)}
    allowed_bare = {"done"} if path.stem.endswith("_solo") else set()
    for span in CODE_SPAN.findall(path.read_text(encoding="utf-8")):
        if TOOL_SPAN.fullmatch(f"`{span}`") or span in allowed_bare:
            continue
        assert span not in env_names, f"{path.name}: `{span}` names a function without its seat prefix"


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
AGENT_PERFORMS = re.compile(r"\byou (?:can |should |must |may |then )?(?:call|run|use|perform|make)\b")


@pytest.mark.parametrize("stem", ["main", "tech_support_manual", "tech_support_workflow", "extended"])
def test_interactive_policies_never_have_the_agent_act_on_the_phone(stem: str) -> None:
    text = " ".join((POLICY_DIR / f"{stem}.md").read_text(encoding="utf-8").split())
    for sentence in SENTENCE_END.split(text):
        if "`phone." in sentence and "ask" not in sentence.lower():
            assert not AGENT_PERFORMS.search(sentence.lower()), sentence
    assert "`phone.make_payment`" in text or stem == "extended"


def test_main_policy_lists_every_bill_status() -> None:
    text = (POLICY_DIR / "main.md").read_text(encoding="utf-8")
    for status in ("Draft", "Issued", "Awaiting Payment", "Paid", "Overdue", "Disputed"):
        assert status in text


def test_solo_policies_end_with_done() -> None:
    for stem in ("main_solo", "tech_support_manual_solo", "tech_support_workflow_solo"):
        assert "`done`" in (POLICY_DIR / f"{stem}.md").read_text(encoding="utf-8"), stem
