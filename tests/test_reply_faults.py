"""What a model did that a run must not hide: replies cut off at the token cap (recorded per turn by both
transports, counted per seat) and tool calls written as text that were not run (kept with the rejected
reply, counted per seat, and traced on an ending that came right after them); shown by `tau2 view`, the
HTML viewer and `tau2 report`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import EntryKind, TerminationReason
from tau2.llm import ModelClient, ModelSpec
from tau2.report.transcripts import transcript
from tau2.runs import SimulationRecord, load_run
from tau2.tasks import Suite
from tau2.testing import Reply, ScriptedOpenAIServer
from tau2.world import Side

CUT_CALLS = (
    '{"name": "get_account", "arguments": {"customer": "Ada"}}, '
    '{"name": "enable_power", "arguments": {"customer": "Ada"}}, '
    '{"name": "plug_in", "argu'
)
"""A small model's solo reply: several calls separated by commas, the last cut off at the token cap."""
WIDE = {"COLUMNS": "240"}


@pytest.fixture(params=["native", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_both_transports_count_a_reply_cut_at_the_token_cap(transport: str) -> None:
    replies = [Reply(content="It is a long story, and", finish_reason="length"), Reply.text("Done.")]
    async with ScriptedOpenAIServer(replies) as server:
        spec = ModelSpec(
            name="openai/m", api_base=server.base_url, args={"api_key": "k"}, transport=transport
        )
        client = ModelClient(spec)
        cut = await client.complete([{"role": "user", "content": "Tell me."}], seed=None)
        whole = await client.complete([{"role": "user", "content": "Tell me."}], seed=None)
    assert (cut.finish_reason, cut.usage.truncated) == ("length", 1)
    assert whole.usage.truncated == 0
    assert (cut.usage + whole.usage).truncated == 1


def solo_run(tmp_path: Path, transport: str, script: list[Reply], *extra: str) -> Path:
    suite = tmp_path / "suite.json"
    Suite(name="faults", domain="mock", tasks=[BOTH]).save(suite)
    out = tmp_path / "run"
    with ScriptedOpenAIServer(script) as server:
        arguments = ["run", "--suite", str(suite), "--mode", "solo", "--out", str(out), "--quiet"]
        arguments += ["--agent-model", "openai/m", "--agent-api-base", server.base_url]
        arguments += ["--agent-arg", "api_key=k", "--agent-transport", transport, *extra]
        result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("reads_text", [False, True])
def test_calls_cut_at_the_token_cap_then_done_is_recorded_as_a_format_failure(
    tmp_path: Path, transport: str, reads_text: bool
) -> None:
    script = [Reply(content=CUT_CALLS, finish_reason="length"), Reply.tool_call("done")]
    out = solo_run(tmp_path, transport, script, *(["--agent-text-tool-calls"] if reads_text else []))
    (record,) = load_run(out).records
    assert record.termination is TerminationReason.AGENT_STOP
    assert record.termination_detail == "ended right after a rejected reply of the agent"
    assert record.format_failures == {Side.AGENT: 1}
    assert record.usage[Side.AGENT].truncated == 1 and record.usage[Side.AGENT].calls == 2
    assert record.trajectory is not None
    rejected, correction = record.trajectory.entries[:2]
    assert rejected.kind is EntryKind.REJECTED_REPLY and rejected.rejected is not None
    cut_off = "the reply was cut off at the token limit before its calls were complete"
    assert rejected.rejected.format_failure == cut_off
    assert rejected.usage is not None and rejected.usage.truncated == 1
    assert correction.kind is EntryKind.ACTOR_ERROR and correction.text is not None
    assert cut_off in correction.text and "`done`" not in correction.text
    advice = "Make fewer calls per reply" if reads_text else "through the tool-calling interface"
    assert advice in correction.text


def test_view_report_and_viewer_show_the_cut_reply_and_the_format_failure(tmp_path: Path) -> None:
    script = [Reply(content=CUT_CALLS, finish_reason="length"), Reply.tool_call("done")]
    out = solo_run(tmp_path, "native", script)
    shown = CliRunner().invoke(app, ["view", str(out)], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "termination agent_stop: ended right after a rejected reply of the agent" in shown.stdout
    assert "agent 2 calls, " in shown.stdout and ", 1 cut at the token cap" in shown.stdout
    assert "format failures (tool calls written as text, not run): agent 1" in shown.stdout
    assert "[reply cut at the token cap]" in shown.stdout
    assert "(tool calls written as text: the reply was cut off at the token" in shown.stdout

    report = CliRunner().invoke(app, ["report", str(out)], env=WIDE)
    assert report.exit_code == 0, report.output
    assert "replies cut at the token cap: agent 1 · format failures: agent 1" in report.stdout
    full = CliRunner().invoke(app, ["report", str(out), "--full"], env=WIDE)
    assert "cut at token cap" in full.stdout and "format failures" in full.stdout
    document = json.loads(CliRunner().invoke(app, ["report", str(out), "--json"]).stdout)
    (agent,) = [seat for seat in document["usage"] if seat["seat"] == "agent"]
    assert (agent["truncated"], agent["format_failures"]) == (1, 1)

    (record,) = load_run(out).records
    data = transcript(record)
    assert data["format"] == {"agent": 1} and data["usage"]["agent"][4] == 1
    first = data["entries"][0]
    assert first[1] == "rejected" and first[2].startswith("(tool calls written as text: the reply was cut")
    assert first[5] == 1, "the turn cut at the token cap is marked"
    assert all(len(entry) == 5 for entry in data["entries"][1:])


def test_records_written_before_the_fields_existed_still_read() -> None:
    old = {
        "task_id": "t",
        "trial": 0,
        "seed": 1,
        "mode": "solo",
        "reward": 1.0,
        "termination": "agent_stop",
        "usage": {"agent": {"calls": 2, "prompt_tokens": 5, "completion_tokens": 3, "cost": None}},
        "trajectory": {
            "entries": [
                {
                    "index": 0,
                    "seat": "agent",
                    "kind": "rejected_reply",
                    "rejected": {"text": "hi", "tool_calls": [], "stop": False},
                }
            ]
        },
    }
    record = SimulationRecord.model_validate(old)
    assert record.format_failures == {} and record.usage[Side.AGENT].truncated == 0
    assert record.trajectory is not None and record.trajectory.format_failures() == {}
