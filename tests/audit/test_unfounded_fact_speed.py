"""The unfounded-fact check made cheap enough to run on every simulation (facts looked up lazily, tokens
found without backtracking) finds exactly what the first version found: on generated conversations, and
on every trajectory of offline runs of several domains, agents and customers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import Entry, EntryKind, ToolCall
from tau2.findings._user_checks import _fact_tokens, _unfounded_fact
from tau2.runs import load_run
from tau2.tasks import Task
from tau2.tau2bench import load_task_file
from tau2.world import Side, ToolResult

from . import unfounded_fact_oracle as oracle

PIECES = [
    " ", " ", ", ", ". ", "-", "_", "#", "$", "%", "@", "+", "\n", "Lamp", "order", "A1", "B2", "x9",
    "0", "1", "7", "42", "1,000", "1000", "3.50", "3.5", "$12.00", "12", "99%", "٣", "١٢٣", "İ", "Ａ1",
    "ZX-9917", "zx9917", "555-0100", "5550100", "#W123", "w123",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=16).map("".join)


@given(texts)
def test_fact_tokens_are_found_as_before(text: str) -> None:
    assert list(_fact_tokens(text)) == list(oracle.fact_tokens(text))


@st.composite
def conversations(draw: st.DrawFn) -> tuple[list[Entry], Task]:
    """Agent and customer messages, and customer tool calls with arguments and results, of random text."""
    entries: list[Entry] = []
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["agent", "user", "call"]))
        index = len(entries)
        if kind == "call":
            call = ToolCall(call_id=f"c{index}", name="check", arguments={"q": draw(texts)}, side=Side.USER)
            result = ToolResult.success(draw(texts | st.just({"n": 1.5})))
            for offset, step in enumerate((EntryKind.TOOL_CALL, EntryKind.TOOL_RESULT)):
                answer = result if step is EntryKind.TOOL_RESULT else None
                entry = Entry(index=index + offset, seat=Side.USER, kind=step, tool_call=call, result=answer)
                entries.append(entry)
        else:
            seat = Side.AGENT if kind == "agent" else Side.USER
            entries.append(Entry(index=index, seat=seat, kind=EntryKind.MESSAGE, text=draw(texts)))
    scenario = BOTH.user_scenario.model_copy(update={"persona_text": draw(texts)})
    return entries, BOTH.model_copy(update={"user_scenario": scenario})


@settings(max_examples=400)
@given(conversations())
def test_unfounded_facts_are_found_as_before(conversation: tuple[list[Entry], Task]) -> None:
    entries, task = conversation
    assert _unfounded_fact(entries, task) == oracle.unfounded_fact(entries, task)


runner = CliRunner()


@pytest.mark.parametrize("agent", ["oracle", "null", "transfer"])
@pytest.mark.parametrize("domain", ["mock", "telecom"])
def test_every_trajectory_of_offline_runs_gives_the_same_finding(
    tmp_path: Path, domain: str, agent: str
) -> None:
    out = tmp_path / "run"
    seats = ["--agent", agent, "--user", "scripted", "--out", str(out), "--quiet"]
    result = runner.invoke(app, ["run", "--domain", domain, *seats])
    assert result.exit_code == 0, result.output
    run = load_run(out)
    tasks = {task.id: task for task in load_task_file(Path(run.manifest.suite_path), domain)}
    records = list(run.records)
    assert len(records) == len(tasks) > 0
    for record in records:
        assert record.trajectory is not None
        entries, task = record.trajectory.entries, tasks[record.task_id]
        assert _unfounded_fact(entries, task) == oracle.unfounded_fact(entries, task)
