"""Tool calls written as JSON in a model's text: recognised only for seats that opt in, only when the whole
text is well-formed calls of the seat's own tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.actors._llm import NOT_THROUGH_THE_INTERFACE, TEXT_CALLS, LLMAgent, LLMUser, SoloAgent
from tau2.cli import app
from tau2.domains.mock import DOMAIN
from tau2.domains.mock.tasks import BOTH
from tau2.episode import EpisodeConfig, Mode, ToolCall, seat_contexts
from tau2.llm import ModelSpec, ModelToolCall, read_text_calls
from tau2.runs import load_manifest, load_run
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer
from tau2.world import Side

TOOLS = ["get_account", "enable_power"]
CALL = {"name": "get_account", "arguments": {"customer": "Ada"}}
SECOND = {"name": "enable_power", "arguments": {"customer": "Ada"}}


def calls_in_text(text: str) -> list[ModelToolCall] | None:
    """The calls `text` is exactly made of, or None (it does not look like calls, or they cannot be read)."""
    reading = read_text_calls(text)
    return None if reading is None or reading.problem is not None else reading.calls


def as_pairs(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    calls = calls_in_text(text)
    return None if calls is None else [(call.name, json.loads(call.arguments)) for call in calls]


def problem(text: str, *, truncated: bool = False) -> str | None:
    reading = read_text_calls(text, truncated=truncated)
    assert reading is not None, "the text should look like tool calls"
    return reading.problem


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CALL),
        f"  {json.dumps(CALL)}\n",
        f"```json\n{json.dumps(CALL)}\n```",
        f"```\n{json.dumps(CALL)}\n```",
        f"<tool_call>\n{json.dumps(CALL)}\n</tool_call>",
        json.dumps({"name": "get_account", "arguments": json.dumps({"customer": "Ada"})}),
        json.dumps({"name": "get_account", "parameters": {"customer": "Ada"}}),
    ],
)
def test_one_call_in_any_accepted_wrapping(text: str) -> None:
    assert as_pairs(text) == [("get_account", {"customer": "Ada"})]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps([CALL, SECOND]),
        f"<tool_call>{json.dumps(CALL)}</tool_call>\n<tool_call>{json.dumps(SECOND)}</tool_call>",
        f"{json.dumps(CALL)},\n{json.dumps(SECOND)}",
        f"```json\n{json.dumps(CALL)}\n```\n\n```json\n{json.dumps(SECOND)}\n```",
    ],
)
def test_several_calls_in_a_list_in_several_tags_or_fences_or_one_after_another(text: str) -> None:
    assert as_pairs(text) == [("get_account", {"customer": "Ada"}), ("enable_power", {"customer": "Ada"})]
    assert as_pairs(json.dumps({"name": "enable_power"})) == [("enable_power", {})]


def test_names_are_read_as_written_for_the_seat_to_check() -> None:
    assert as_pairs(json.dumps({"name": "reboot_universe", "arguments": {}})) == [("reboot_universe", {})]


@pytest.mark.parametrize("text", ["[]", "{}", "I will look up your account.", '{"customer": "Ada"}'])
def test_text_that_does_not_look_like_calls_is_not_read(text: str) -> None:
    assert read_text_calls(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Sure! {json.dumps(CALL)}", "the calls are mixed with other text"),
        (f"{json.dumps(CALL)} Let me check.", "the calls are mixed with other text"),
        (f"<tool_call>{json.dumps(CALL)}</tool_call> and more", "the calls are mixed with other text"),
        (json.dumps({"name": "get_account", "arguments": [1, 2]}), "the arguments of `get_account` are not"),
        (
            json.dumps({"name": "get_account", "arguments": "{not json"}),
            "the arguments of `get_account` are not",
        ),
        (
            json.dumps({**CALL, "id": "x"}),
            '{"name": "get_account", "arguments": {"customer": "Ada"},... is not a call',
        ),
        (
            '{"name": "get_account", "arguments": {"customer": "Ada"}',
            "its JSON ends before the calls are complete",
        ),
        ('{"name": "get_account", "arguments": {"customer": Ada}}', "its JSON is not valid (Expecting value"),
        ('{"name": 7, "arguments": {}} {"name": "x"}', "a call has no tool name"),
    ],
)
def test_text_that_looks_like_calls_but_cannot_be_read_says_why(text: str, expected: str) -> None:
    found = problem(text)
    assert found is not None and found.startswith(expected)
    assert calls_in_text(text) is None


def test_calls_cut_off_at_the_token_cap_are_named_as_such() -> None:
    """What a small model wrote in solo mode: several calls separated by commas, the last one cut off."""
    cut = f"{json.dumps(CALL)}, {json.dumps(SECOND)}, " + '{"name": "get_account", "arguments": {"cus'
    assert (
        problem(cut, truncated=True)
        == "the reply was cut off at the token limit before its calls were complete"
    )
    assert problem(cut) == "its JSON ends before the calls are complete"
    fenced = f"```json\n{json.dumps(CALL)}\n```\n```json\n" + '{"name": "enable_power"'
    assert (
        problem(fenced, truncated=True)
        == "the reply was cut off at the token limit before its calls were complete"
    )
    unclosed = f"```json\n{json.dumps(CALL)}\n"
    assert (
        problem(unclosed, truncated=True)
        == "the reply was cut off at the token limit before its calls were complete"
    )


@given(st.text())
def test_text_that_does_not_open_like_json_is_never_a_call(text: str) -> None:
    if not text.strip().startswith(("{", "[", "`", "<")):
        assert calls_in_text(text) is None


@given(
    st.sampled_from(TOOLS),
    st.dictionaries(
        st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=3
    ),
)
@example(TOOLS[0], {"": "```"})
@example(TOOLS[0], {"a": "</tool_call>"})
def test_a_bare_call_round_trips(name: str, arguments: dict[str, Any]) -> None:
    assert as_pairs(json.dumps({"name": name, "arguments": arguments})) == [(name, arguments)]


@given(
    st.sampled_from(TOOLS),
    st.dictionaries(
        st.text(max_size=5), st.sampled_from(["```", "</tool_call>", "<tool_call>", "x"]), max_size=2
    ),
    st.sampled_from([("<tool_call>", "</tool_call>"), ("```json\n", "\n```"), ("```", "```")]),
)
def test_a_closing_marker_inside_the_arguments_does_not_end_the_call(
    name: str, arguments: dict[str, str], wrapping: tuple[str, str]
) -> None:
    opening, closing = wrapping
    text = f"{opening}{json.dumps({'name': name, 'arguments': arguments})}{closing}"
    assert as_pairs(text) == [(name, arguments)]


def spec(server: ScriptedOpenAIServer) -> ModelSpec:
    return ModelSpec(name="openai/tau2-test-model", api_base=server.base_url, args={"api_key": "k"})


@pytest.mark.parametrize("enabled", [False, True])
async def test_agent_reads_a_call_in_text_only_when_enabled(enabled: bool) -> None:
    text = f"<tool_call>{json.dumps(CALL)}</tool_call>"
    async with ScriptedOpenAIServer([Reply.text(text)]) as server:
        agent = LLMAgent(spec(server), text_tool_calls=enabled)
        await agent.start(seat_contexts(BOTH, DOMAIN, EpisodeConfig(seed=1))[Side.AGENT])
        turn = await agent.act([])
    if enabled:
        assert turn.text is None and turn.error is None
        assert [(call.name, call.arguments) for call in turn.tool_calls] == [
            ("get_account", {"customer": "Ada"})
        ]
    else:
        assert turn.text == text and not turn.tool_calls


@pytest.mark.parametrize("enabled", [False, True])
async def test_solo_agent_text_call_is_a_rejection_unless_enabled(enabled: bool) -> None:
    async with ScriptedOpenAIServer(
        [Reply.text('```json\n{"name": "done", "arguments": {}}\n```')]
    ) as server:
        agent = SoloAgent(spec(server), text_tool_calls=enabled)
        config = EpisodeConfig(seed=1, mode=Mode.SOLO)
        await agent.start(seat_contexts(BOTH, DOMAIN, config)[Side.AGENT])
        turn = await agent.act([])
    if enabled:
        assert turn.error is None and [call.name for call in turn.tool_calls] == ["done"]
    else:  # told what went wrong, never to call `done`, which it just tried to
        assert turn.error == TEXT_CALLS and "`done`" not in turn.error
        assert turn.rejected is not None and "done" in (turn.rejected.text or "")
        assert turn.rejected.format_failure == NOT_THROUGH_THE_INTERFACE


async def test_user_hangs_up_with_end_call_in_text_and_a_call_of_another_seats_tool_is_corrected() -> None:
    replies = [
        Reply.text(json.dumps({"name": "get_account", "arguments": {"customer": "Ada"}})),
        Reply.text('{"name": "end_call", "arguments": {}}'),
    ]
    async with ScriptedOpenAIServer(replies) as server:
        user = LLMUser(spec(server), text_tool_calls=True)
        await user.start(seat_contexts(BOTH, DOMAIN, EpisodeConfig(seed=1))[Side.USER])
        agent_tool = await user.act([])
        hang_up = await user.act([])
    # as a structured call of the agent's tool would be: corrected, with the hint to ask the agent
    assert agent_tool.error is not None and "`get_account` is not one of your tools" in agent_tool.error
    assert "ask the agent in a message" in agent_tool.error
    assert agent_tool.rejected is not None and agent_tool.rejected.format_failure is None
    assert hang_up.stop and hang_up.error is None


def provider(request: ChatRequest) -> Reply:
    """Both seats of `both`, every call written as text; only an agent reading them completes the task."""
    replies = sum(message["role"] == "assistant" for message in request.messages)
    if "end_call" in request.tool_names:
        return [Reply.text("My lamp is dark."), Reply.tool_call("plug_in"), Reply.tool_call("end_call")][
            min(replies, 2)
        ]
    script = [
        Reply.text(json.dumps({"name": "enable_power", "arguments": {"customer": "Ada"}})),
        Reply.text("Power is back; please plug the lamp in."),
        Reply.text("Glad to help."),
    ]
    return script[min(replies - 1, 2)]


def test_run_records_the_option_and_resume_keeps_it(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    Suite(name="text-calls", domain="mock", tasks=[BOTH]).save(suite)
    results: dict[str, Any] = {}
    for enabled in (False, True):
        out = tmp_path / f"run-{enabled}"
        with ScriptedOpenAIServer(provider) as server:
            arguments = ["run", "--suite", str(suite), "--out", str(out)]
            for seat in ("agent", "user"):
                arguments += [
                    f"--{seat}-model",
                    "openai/tau2-test-model",
                    f"--{seat}-api-base",
                    server.base_url,
                ]
                arguments += [f"--{seat}-arg", "api_key=k"]
            if enabled:
                arguments.append("--agent-text-tool-calls")
            result = CliRunner().invoke(app, arguments)
            assert result.exit_code == 0, result.output
        manifest = load_manifest(out)
        assert manifest.agent.text_tool_calls is enabled and manifest.user is not None
        assert not manifest.user.text_tool_calls
        stored = json.loads((out / "manifest.json").read_text())
        assert ("text_tool_calls" in stored["config"]["agent"]) is enabled
        (record,) = load_run(out).records
        assert record.trajectory is not None
        results[str(enabled)] = record
    off, on = results["False"], results["True"]
    assert off.trajectory is not None and on.trajectory is not None
    assert [call for call in off.trajectory.tool_calls() if call.side is Side.AGENT] == []
    assert not off.success
    assert on.trajectory.tool_calls()[0] == ToolCall(
        call_id=on.trajectory.tool_calls()[0].call_id,
        name="enable_power",
        arguments={"customer": "Ada"},
        side=Side.AGENT,
    )
    assert on.success
    keys = ["--agent-arg", "api_key=k", "--user-arg", "api_key=k"]  # keys are never stored with a run
    resumed = CliRunner().invoke(app, ["run", "--resume", "--out", str(tmp_path / "run-True"), *keys])
    assert resumed.exit_code == 0, resumed.output
    assert load_manifest(tmp_path / "run-True").agent.text_tool_calls

    refused = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            str(suite),
            "--agent",
            "oracle",
            "--user",
            "scripted",
            "--user-text-tool-calls",
            "--out",
            str(tmp_path / "offline"),
        ],
    )
    assert refused.exit_code == 2
    assert "--user-text-tool-calls: the scripted seat has no model" in refused.output
