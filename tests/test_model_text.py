"""Hostile model text at the boundary and what a seat said that was not accepted, through `tau2 run`,
`--resume`, `tau2 view` and the report's transcript data, on both transports."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import EntryKind, Mode, TerminationReason
from tau2.llm import RetryPolicy, call_settings, safe_text
from tau2.report.transcripts import transcript
from tau2.runs import RecordWriter, SimulationRecord, load_run, read_records
from tau2.tasks import Suite, UserInstructions
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer
from tau2.world import Side

LONE = "\ud83d"
"""A lone high surrogate: valid in JSON (`"\\ud83d"`), not encodable as UTF-8."""
CASE = re.compile(r"case (\S+)\.")


def test_safe_text_replaces_lone_surrogates_and_keeps_pairs() -> None:
    assert safe_text(f"a{LONE}b\udc00") == "a\ufffdb\ufffd"
    assert safe_text("\ud83d\ude00 ok") == "\U0001f600 ok"
    clean = "plain \x00 \x1b[31m text"
    assert safe_text(clean) is clean


SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=[])


@given(st.text(alphabet=st.one_of(st.characters(), SURROGATES)))
def test_safe_text_always_encodes_and_leaves_clean_text_alone(text: str) -> None:
    cleaned = safe_text(text)
    cleaned.encode("utf-8")
    assert len(cleaned) <= len(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        assert "\ufffd" in cleaned or len(cleaned) < len(text)
    else:
        assert cleaned == text


def hostile(request: ChatRequest) -> Reply:
    """Both seats of `both`; the `chatty` case writes lone surrogates everywhere a model can, the
    `refused` case gets a provider error whose message carries one."""
    found = CASE.search(str(request.messages))
    assert found is not None
    case = found.group(1)
    replies = sum(message["role"] == "assistant" for message in request.messages)
    if "end_call" in request.tool_names:
        user = [
            Reply.text(f"My lamp is dark {LONE} (case {case}.)"),
            Reply.tool_call("plug_in", call_id=f"user{LONE}"),
            Reply.text(f"It is lit now {LONE}."),
            Reply.tool_call("end_call"),
        ]
        return user[replies]
    if case == "refused":
        return Reply.error(400, f"bad request {LONE} from the provider")
    agent = [
        Reply.tool_call(f"get_account{LONE}", {"customer": "Ada"}),
        Reply.tool_call("get_account", '{"customer": "Ada\\ud83d"}'),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.text(f"Power is back {LONE}. Please plug your lamp in."),
        Reply.text("Your issue is resolved."),
    ]
    notices = sum("not accepted" in str(message.get("content")) for message in request.messages)
    return agent[replies - 1 + notices]


def suite(tmp_path: Path, cases: list[str]) -> Path:
    instructions = BOTH.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    tasks = []
    for case in cases:
        known = instructions.model_copy(update={"known_info": f"You are Ada, case {case}."})
        scenario = BOTH.user_scenario.model_copy(update={"instructions": known})
        tasks.append(BOTH.model_copy(update={"id": case, "user_scenario": scenario}))
    path = tmp_path / "suite.json"
    Suite(name="hostile", domain="mock", tasks=tasks).save(path)
    return path


def seat_arguments(server: ScriptedOpenAIServer, transport: str, seats: tuple[str, ...]) -> list[str]:
    arguments = []
    for seat in seats:
        arguments += [f"--{seat}", "llm", f"--{seat}-model", "openai/tau2-test-model"]
        arguments += [f"--{seat}-api-base", server.base_url, f"--{seat}-arg", "api_key=sk-test"]
        arguments += [f"--{seat}-transport", transport]
    return arguments


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_lone_surrogates_from_model_and_provider_are_replaced_and_the_run_resumes(
    tmp_path: Path, transport: str
) -> None:
    out = tmp_path / "run"
    with (
        ScriptedOpenAIServer(hostile) as server,
        call_settings(retry=RetryPolicy(base_delay_s=0.0, max_delay_s=0.0)),
    ):
        arguments = ["run", "--suite", str(suite(tmp_path, ["chatty", "refused"])), "--out", str(out)]
        first = CliRunner().invoke(app, [*arguments, *seat_arguments(server, transport, ("agent", "user"))])
        assert first.exit_code == 0, first.output
        seats = seat_arguments(server, transport, ("agent", "user"))  # keys are never stored: given again
        resumed = CliRunner().invoke(app, ["run", "--resume", "--out", str(out), *seats])
        assert resumed.exit_code == 0, resumed.output
    text = (out / "results.jsonl").read_text(encoding="utf-8")
    records, _ = read_records(out / "results.jsonl")
    by_task = {record.task_id: record for record in load_run(out).records}
    assert len(records) == 3  # the refused simulation was re-run once by --resume
    chatty, refused = by_task["chatty"], by_task["refused"]
    assert chatty.termination is TerminationReason.USER_STOP and chatty.success, chatty.termination_detail
    assert refused.termination is TerminationReason.INFRASTRUCTURE_ERROR
    assert "bad request \ufffd from the provider" in (refused.termination_detail or "")
    assert chatty.trajectory is not None
    entries = chatty.trajectory.entries
    assert entries[1].text == "My lamp is dark \ufffd (case chatty.)"
    rejected = [entry.rejected for entry in entries if entry.kind is EntryKind.REJECTED_REPLY]
    assert [call.name for reply in rejected if reply for call in reply.tool_calls] == ["get_account\ufffd"]
    calls = chatty.trajectory.tool_calls()
    assert calls[0].arguments == {"customer": "Ada\ufffd"}
    assert calls[2].call_id == "user\ufffd"
    assert "\ufffd" in text and "\\ud83d" not in text


def test_a_record_that_cannot_be_serialised_becomes_an_infrastructure_error(tmp_path: Path) -> None:
    def record(task_id: str, detail: str) -> SimulationRecord:
        return SimulationRecord(
            task_id=task_id,
            trial=0,
            seed=7,
            mode=Mode.INTERACTIVE,
            reward=1.0,
            termination=TerminationReason.USER_STOP,
            termination_detail=detail,
        )

    async def write() -> None:
        async with RecordWriter(tmp_path / "results.jsonl") as writer:
            writer.write(record("before", "fine"))
            writer.write(record("broken", f"unclean {LONE}"))
            writer.write(record("after", "fine"))

    asyncio.run(write())
    records, _ = read_records(tmp_path / "results.jsonl")
    assert [(r.task_id, r.termination, r.reward) for r in records] == [
        ("before", TerminationReason.USER_STOP, 1.0),
        ("broken", TerminationReason.INFRASTRUCTURE_ERROR, 0.0),
        ("after", TerminationReason.USER_STOP, 1.0),
    ]
    assert "could not be stored" in (records[1].termination_detail or "")


def solo_agent(request: ChatRequest) -> Reply:
    """A solo agent that first talks, then writes broken JSON, calls an unknown tool, then does the job."""
    replies = sum(message["role"] == "assistant" for message in request.messages)
    notices = sum("not accepted" in str(message.get("content")) for message in request.messages)
    script = [
        Reply.text("I will look into it."),
        Reply.tool_call("enable_power", '{"customer": "Ada"'),
        Reply.tool_call("reboot_universe", {"now": True}),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.tool_call("plug_in"),
        Reply.tool_call("done"),
    ]
    return script[replies + notices]


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_solo_rejected_replies_are_kept_shown_and_not_counted_twice(tmp_path: Path, transport: str) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(solo_agent) as server:
        arguments = ["run", "--suite", str(suite(tmp_path, ["solo"])), "--mode", "solo", "--out", str(out)]
        arguments += ["--max-actor-retries", "4"]
        result = CliRunner().invoke(app, [*arguments, *seat_arguments(server, transport, ("agent",))])
        assert result.exit_code == 0, result.output
    (record,) = load_run(out).records
    assert record.success and record.trajectory is not None
    kinds = [(entry.kind.value, entry.seat) for entry in record.trajectory.entries]
    assert kinds[:6] == [("rejected_reply", Side.AGENT), ("actor_error", Side.AGENT)] * 3
    rejected = [entry.rejected for entry in record.trajectory.entries[:6:2]]
    assert rejected[0] is not None and rejected[0].text == "I will look into it."
    assert rejected[1] is not None and rejected[1].tool_calls[0].arguments == '{"customer": "Ada"'
    assert rejected[2] is not None and rejected[2].tool_calls[0].name == "reboot_universe"
    assert record.steps == 6  # one per model turn, accepted or not
    assert record.usage[Side.AGENT].calls == 6

    view = CliRunner().invoke(app, ["view", str(out)], env={"COLUMNS": "200"})
    assert view.exit_code == 0, view.output
    assert "✗ not accepted: I will look into it." in view.output
    assert 'reboot_universe({"now": true})' in view.output
    entries = transcript(record)["entries"]
    assert entries[0] == ["agent", "rejected", "I will look into it.", [], False]
    assert entries[4][:4] == ["agent", "rejected", "", [["reboot_universe", '{"now": true}']]]
