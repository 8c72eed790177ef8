"""`tau2 check-model` against the local scripted server, through both transports: a good server, ones
whose tool calls come back as text (told apart by their form, and read with the text-tool-call options),
one imitating llama.cpp (tool_choice not enforced), one refusing tools or tool_choice, one refusing the
key, and a closed port."""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.llm._probe import PROBE_MAX_TOKENS
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedToolCall

CAP_KEYS = ("max_tokens", "max_completion_tokens")


@pytest.fixture(params=["native", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


LOOKUP = '{"name": "lookup_order", "arguments": {"order_id": "A-17"}}'
FENCED = f"```json\n{LOOKUP}\n```"


def good(request: ChatRequest) -> Reply:
    """Answers chats, calls the tool it is offered, honours `required` and makes parallel calls."""
    if not request.tools:
        return Reply.text("ready")
    assert request.tool_choice in (None, "required"), "the probe sends tool_choice in the string form"
    if "get_weather" in request.tool_names:
        cities = [
            ScriptedToolCall(name="get_weather", arguments={"city": city}) for city in ("Paris", "Tokyo")
        ]
        return Reply.parallel_tool_calls(cities)
    return Reply.tool_call("lookup_order", {"order_id": "A-17"})


def one_call_at_a_time(request: ChatRequest) -> Reply:
    if not request.tools:
        return Reply.text("ready")
    name = "get_weather" if "get_weather" in request.tool_names else "lookup_order"
    return Reply.tool_call(name, {"city": "Paris"} if name == "get_weather" else {"order_id": "A-17"})


def calls_as_text(request: ChatRequest) -> Reply:
    """A server without a tool-call parser: the model's call stays in the content."""
    if not request.tools:
        return Reply.text("ready")
    return Reply.text(LOOKUP)


def tags_unparsed(request: ChatRequest) -> Reply:
    """A server whose parser is off: the Qwen template's `<tool_call>` tags come back as text."""
    if not request.tools:
        return Reply.text("ready")
    return Reply.text(f"<tool_call>\n{LOOKUP}\n</tool_call>")


def llama_cpp(request: ChatRequest) -> Reply:
    """What llama.cpp with `--jinja` and Qwen2.5-Coder 0.5B answered: an object-valued tool_choice is
    ignored (the server logs "Wrong type supplied for parameter 'tool_choice'"), `required` is accepted but
    not enforced, and the model writes its calls as fenced JSON, repeating them until the token cap."""
    if not request.tools:
        return Reply.text("ready")
    if "get_weather" in request.tool_names:
        fences = "\n\n".join(
            f'```json\n{{"name": "get_weather", "arguments": {{"city": "{city}"}}}}\n```'
            for city in ("Paris", "Tokyo", "Paris")
        )
        return Reply(content=fences + '\n\n```json\n{"name": "get_weather", "argu', finish_reason="length")
    if "ready" in str(request.last_message):
        return Reply.text("ready")
    return Reply.text(FENCED)


def refuses_tool_choice(request: ChatRequest) -> Reply:
    """A server that takes tools but no tool_choice, with the message llama.cpp logs for a wrong one."""
    if request.tool_choice is not None:
        return Reply.error(400, "Wrong type supplied for parameter 'tool_choice'")
    return good(request)


def refuses_tools(request: ChatRequest) -> Reply:
    if request.tools:
        return Reply.error(400, "tools are not supported by this server")
    return Reply.text("ready")


def check(
    responder: Callable[[ChatRequest], Reply],
    transport: str,
    *extra: str,
    model: str = "openai/qwen3-8b",
    models: Sequence[Mapping[str, Any]] | None = None,
) -> tuple[Result, list[str], int]:
    with ScriptedOpenAIServer(responder, models=models) as server:
        arguments = ["check-model", "--agent-model", model, "--agent-api-base", server.base_url]
        arguments += ["--agent-transport", transport, "--agent-arg", "api_key=sk-test", *extra]
        result = CliRunner().invoke(app, arguments)
        port = server.port
    return result, result.stdout.splitlines(), port


def test_a_good_server_passes_every_check(transport: str) -> None:
    result, lines, port = check(good, transport, models=[{"id": "qwen3-8b", "max_model_len": 32768}])
    assert result.exit_code == 0, result.output
    base = f"http://127.0.0.1:{port}/v1"
    assert lines[0] == f"agent: openai/qwen3-8b at {base} ({transport} transport)"
    assert lines[1] == f"  ✓ reachable: {base} answered"
    assert lines[2] == "  ✓ authenticated: the request was accepted"
    assert lines[3].startswith("  ✓ answers a chat: 'ready' in ") and lines[3].endswith(" ms")
    assert lines[4:] == [
        '  ✓ tool calls: came back as a structured call: lookup_order({"order_id": "A-17"})',
        "  ✓ forced tool choice: tool_choice=required is enforced "
        "(a call came back to a prompt that needs none)",
        "  ✓ parallel tool calls: 2 calls in one reply",
        "  · context window: 32768 tokens (reported by the server)",
        "  ! pricing: not in litellm's cost map: costs will show as unpriced, not as free",
    ]


def test_llama_cpp_metadata_and_a_priced_model(transport: str) -> None:
    models = [{"id": "gpt-4o-mini", "meta": {"n_ctx_train": 8192}}]
    result, lines, _ = check(one_call_at_a_time, transport, model="openai/gpt-4o-mini", models=models)
    assert result.exit_code == 0, result.output
    assert lines[-3:] == [
        "  ! parallel tool calls: one call per reply (the model or server does not make parallel calls)",
        "  · context window: 8192 tokens (reported by the server)",
        "  ✓ pricing: $0.15 in / $0.60 out per million tokens (litellm's cost map)",
    ]


def test_without_a_server_listing_the_context_window_comes_from_litellm(transport: str) -> None:
    result, lines, _ = check(good, transport, model="openai/gpt-4o-mini")
    assert result.exit_code == 0, result.output
    assert "  · context window: 128000 tokens (litellm's model info)" in lines


def tool_line(lines: list[str], name: str = "tool calls") -> str:
    (line,) = [line for line in lines if line.startswith((f"  ✓ {name}:", f"  ✗ {name}:", f"  ! {name}:"))]
    return line


@pytest.mark.parametrize(
    ("responder", "opening", "cause"),
    [
        (
            calls_as_text,
            "the call came back as bare JSON text: either the server has no tool-call parser",
            "or the model writes calls in a form its parser does not read",
        ),
        (
            tags_unparsed,
            "the call came back as text in <tool_call> tags: the server passed",
            "its tool-call parser is off or does not match the model",
        ),
        (
            llama_cpp,
            "the call came back as text in a Markdown code fence: the model wraps its calls",
            "not a missing server option",
        ),
    ],
)
def test_calls_written_as_text_are_told_apart_by_their_form(
    responder: Callable[[ChatRequest], Reply], opening: str, cause: str, transport: str
) -> None:
    result, lines, _ = check(responder, transport)
    assert result.exit_code == 1
    line = tool_line(lines)
    assert line.startswith(f"  ✗ tool calls: {opening}") and cause in line
    assert 'tau2 reads it as lookup_order({"order_id": "A-17"}) with --agent-text-tool-calls' in line
    assert not any("parallel" in line for line in lines)
    if responder is llama_cpp:  # the server's options are not to blame for the model's own form
        assert "tool-call parser is off" not in line and "--jinja" not in line


def test_the_text_tool_call_option_confirms_the_remedy_and_forcing_is_reported_unenforced(
    transport: str,
) -> None:
    result, lines, _ = check(llama_cpp, transport, "--agent-text-tool-calls")
    assert result.exit_code == 0, result.output
    assert tool_line(lines) == (
        "  ✓ tool calls: the call came back as text in a Markdown code fence, read as calls with "
        '--agent-text-tool-calls: lookup_order({"order_id": "A-17"})'
    )
    forced = tool_line(lines, "forced tool choice")
    assert forced.startswith(
        "  ! forced tool choice: tool_choice=required is not enforced: the server accepted"
    )
    assert "answered 'ready'" in forced
    parallel = tool_line(lines, "parallel tool calls")
    assert parallel.startswith("  ! parallel tool calls: tool_choice=required answered without a tool call: ")
    assert "cannot read it as calls: the reply was cut off at the token limit" in parallel


def test_a_server_refusing_tool_choice_only_warns(transport: str) -> None:
    result, lines, _ = check(refuses_tool_choice, transport)
    assert result.exit_code == 0, result.output
    assert tool_line(lines).startswith("  ✓ tool calls: came back as a structured call: ")
    for name in ("forced tool choice", "parallel tool calls"):
        line = tool_line(lines, name)
        assert line.startswith(f"  ! {name}: tool_choice=required was refused: ")
        assert "Wrong type supplied for parameter 'tool_choice'" in line


def test_the_text_tool_call_option_needs_the_seats_model() -> None:
    result = CliRunner().invoke(app, ["check-model", "--agent-model", "openai/m", "--user-text-tool-calls"])
    assert result.exit_code == 2
    assert "--user-text-tool-calls: no --user-model to check" in result.stderr


def test_a_server_refusing_tools_fails_the_tool_check(transport: str) -> None:
    result, lines, _ = check(refuses_tools, transport)
    assert result.exit_code == 1
    line = tool_line(lines)
    assert line.startswith("  ✗ tool calls: the server refused a request with tools: ")
    assert line.endswith("tools are not supported by this server")


def test_a_refused_key_fails_authentication(transport: str) -> None:
    result, lines, _ = check(lambda _: Reply.error(401), transport)
    assert result.exit_code == 1
    assert lines[2].startswith("  ✗ authenticated: ") and "Incorrect API key provided" in lines[2]
    assert not any("chat" in line for line in lines)


def test_a_closed_port_is_unreachable(transport: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    arguments = [
        "check-model",
        "--user-model",
        "openai/m",
        "--user-api-base",
        base,
        "--user-transport",
        transport,
    ]
    result = CliRunner().invoke(app, [*arguments, "--user-arg", "api_key=k"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"user: openai/m at {base} ({transport} transport)"
    assert lines[1].startswith(f"  ✗ reachable: cannot connect to {base}: ConnectionRefusedError: ")


def test_a_missing_key_is_reported_without_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = CliRunner().invoke(app, ["check-model", "--judge-model", "anthropic/claude-sonnet-4-5"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "judge: anthropic/claude-sonnet-4-5 (litellm transport)",
        "  ✗ credentials: ANTHROPIC_API_KEY is not set",
    ]


def test_no_model_is_an_input_error() -> None:
    result = CliRunner().invoke(app, ["check-model"])
    assert result.exit_code == 2
    assert "no model to check" in result.stderr


@pytest.mark.parametrize(
    ("own", "cap"),
    [
        ({}, {"max_tokens": PROBE_MAX_TOKENS}),
        ({"max_tokens": 64}, {"max_tokens": 64}),  # the seat's own smaller cap is kept
        ({"max_tokens": 100000}, {"max_tokens": PROBE_MAX_TOKENS}),
        ({"max_completion_tokens": 4096}, {"max_completion_tokens": PROBE_MAX_TOKENS}),
    ],
)
def test_the_forced_probes_cap_the_reply_and_the_others_ask_as_runs_do(
    transport: str, own: dict[str, int], cap: dict[str, int]
) -> None:
    seat_args = [part for key, value in own.items() for part in ("--agent-arg", f"{key}={value}")]
    with ScriptedOpenAIServer(good) as server:
        arguments = ["check-model", "--agent-model", "openai/qwen3-8b", "--agent-api-base", server.base_url]
        arguments += ["--agent-transport", transport, "--agent-arg", "api_key=sk-test", *seat_args]
        result = CliRunner().invoke(app, arguments)
        requests = server.requests
    assert result.exit_code == 0, result.output
    sent = [
        (
            request.tool_choice,
            {key: value for key, value in (request.model_extra or {}).items() if key in CAP_KEYS},
        )
        for request in requests
    ]
    assert [caps for choice, caps in sent if choice] == [cap, cap], "the forced and the parallel probe"
    assert [caps for choice, caps in sent if not choice] == [own, own], "the chat and the tool call, as runs"
