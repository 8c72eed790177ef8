"""`tau2 check-model` against the local scripted server, through both transports: a good server, one
that writes tool calls as text, one that refuses tools, one that refuses the key, and a closed port."""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedToolCall


@pytest.fixture(params=["native", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def good(request: ChatRequest) -> Reply:
    """Answers chats, honours a forced tool and makes parallel calls under `required`."""
    if not request.tools:
        return Reply.text("ready")
    if request.tool_choice == "required":
        cities = [
            ScriptedToolCall(name="get_weather", arguments={"city": city}) for city in ("Paris", "Tokyo")
        ]
        return Reply.parallel_tool_calls(cities)
    forced = request.tool_choice
    assert isinstance(forced, dict) and forced["function"]["name"] == "lookup_order"
    return Reply.tool_call("lookup_order", {"order_id": "A-17"})


def one_call_at_a_time(request: ChatRequest) -> Reply:
    if not request.tools:
        return Reply.text("ready")
    name = "get_weather" if request.tool_choice == "required" else "lookup_order"
    return Reply.tool_call(name, {"city": "Paris"} if name == "get_weather" else {"order_id": "A-17"})


def calls_as_text(request: ChatRequest) -> Reply:
    """A server without a tool-call parser: the model's call stays in the content."""
    if not request.tools:
        return Reply.text("ready")
    return Reply.text('{"name": "lookup_order", "arguments": {"order_id": "A-17"}}')


def refuses_tools(request: ChatRequest) -> Reply:
    if request.tools:
        return Reply.error(400, "tools are not supported by this server")
    return Reply.text("ready")


def check(
    responder: Callable[[ChatRequest], Reply],
    transport: str,
    *,
    model: str = "openai/qwen3-8b",
    models: Sequence[Mapping[str, Any]] | None = None,
) -> tuple[Result, list[str], int]:
    with ScriptedOpenAIServer(responder, models=models) as server:
        arguments = ["check-model", "--agent-model", model, "--agent-api-base", server.base_url]
        arguments += ["--agent-transport", transport, "--agent-arg", "api_key=sk-test"]
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
        '  ✓ tool calls: forced call came back: lookup_order({"order_id": "A-17"})',
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


def test_tool_calls_written_as_text_are_named_as_such(transport: str) -> None:
    result, lines, _ = check(calls_as_text, transport)
    assert result.exit_code == 1
    (line,) = [line for line in lines if "tool calls:" in line]
    assert line.startswith("  ✗ tool calls: tool calls come back as text in the reply's content: ")
    assert "lacks a tool-call parser" in line
    assert not any("parallel" in line for line in lines)


def test_a_server_refusing_tools_fails_the_tool_check(transport: str) -> None:
    result, lines, _ = check(refuses_tools, transport)
    assert result.exit_code == 1
    (line,) = [line for line in lines if "tool calls:" in line]
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
