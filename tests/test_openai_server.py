"""Tests of the scripted OpenAI-compatible server, driven through the real litellm client over HTTP."""

import asyncio
import json
import time
from typing import Any

import aiohttp
import litellm
import pytest
from litellm.exceptions import (
    BadRequestError,
    ContextWindowExceededError,
    InternalServerError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)
from pydantic import ValidationError

from tau2.testing import (
    ChatRequest,
    Reply,
    ScriptedOpenAIServer,
    ScriptedToolCall,
    ScriptedUsage,
    estimate_tokens,
)

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


async def complete(server: ScriptedOpenAIServer, **kwargs: Any) -> Any:
    """Call litellm against the scripted server with test defaults, overridable per call."""
    params: dict[str, Any] = {
        "model": "openai/gpt-4o-mini",
        "api_base": server.base_url,
        "api_key": "test-key",
        "messages": MESSAGES,
        "num_retries": 0,
        **kwargs,
    }
    return await litellm.acompletion(**params)


async def post_raw(url: str, body: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
    """POST a JSON body without litellm, returning status, parsed body and headers."""
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        return response.status, await response.json(), dict(response.headers)


async def test_tool_call_arrives_as_litellm_tool_call_with_default_usage() -> None:
    with ScriptedOpenAIServer(
        [Reply.tool_call("get_weather", {"city": "Paris"}, content="Checking.")]
    ) as server:
        response = await complete(server, tools=TOOLS)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking."
    [call] = choice.message.tool_calls
    assert call.id == "call_1_0"
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    sent = json.dumps(server.requests[0].messages, separators=(",", ":"))
    assert response.usage.prompt_tokens == estimate_tokens(sent)
    assert response.usage.completion_tokens == estimate_tokens('get_weather{"city": "Paris"}Checking.')
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens


async def test_scripted_usage_arrives_and_prices_a_known_model() -> None:
    usage = ScriptedUsage(prompt_tokens=1000, completion_tokens=500)
    with ScriptedOpenAIServer([Reply.text("Sunny.", usage=usage)]) as server:
        response = await complete(server)
    assert response.model == "gpt-4o-mini"
    assert response.choices[0].message.content == "Sunny."
    assert response.choices[0].finish_reason == "stop"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (1000, 500)
    price = litellm.model_cost["gpt-4o-mini"]
    expected = 1000 * price["input_cost_per_token"] + 500 * price["output_cost_per_token"]
    assert expected > 0
    assert litellm.completion_cost(completion_response=response) == pytest.approx(expected)


async def test_unknown_model_cost_raises_not_mapped() -> None:
    with ScriptedOpenAIServer([Reply.text("Hi.")]) as server:
        response = await complete(server, model="openai/tau2-unpriced-model")
    assert response.model == "tau2-unpriced-model"
    with pytest.raises(Exception, match="isn't mapped"):
        litellm.completion_cost(completion_response=response)


async def test_malformed_arguments_pass_through_verbatim() -> None:
    raw = '{"city": "Par'
    with ScriptedOpenAIServer([Reply.tool_call("get_weather", raw)]) as server:
        response = await complete(server, tools=TOOLS)
    [call] = response.choices[0].message.tool_calls
    assert call.function.arguments == raw
    assert response.choices[0].message.content is None


async def test_parallel_tool_calls_and_empty_message() -> None:
    calls = [
        ScriptedToolCall(name="get_weather", arguments={"city": "Paris"}, id="call_a"),
        ScriptedToolCall(name="get_weather", arguments={"city": "Rome"}),
    ]
    with ScriptedOpenAIServer([Reply.parallel_tool_calls(calls), Reply.empty()]) as server:
        first = await complete(server, tools=TOOLS)
        second = await complete(server, tools=TOOLS)
    assert [call.id for call in first.choices[0].message.tool_calls] == ["call_a", "call_1_1"]
    assert [json.loads(c.function.arguments)["city"] for c in first.choices[0].message.tool_calls] == [
        "Paris",
        "Rome",
    ]
    assert second.choices[0].message.content is None
    assert not second.choices[0].message.tool_calls
    assert second.choices[0].finish_reason == "stop"


async def test_rate_limit_without_retries_raises_once() -> None:
    with ScriptedOpenAIServer([Reply.error(429, retry_after=1), Reply.text("late")]) as server:
        with pytest.raises(RateLimitError):
            await complete(server)
        assert server.request_count == 1
        assert server.pending_replies == 1


async def test_rate_limit_then_success_is_retried_by_num_retries() -> None:
    with ScriptedOpenAIServer([Reply.error(429), Reply.text("Recovered.")]) as server:
        response = await complete(server, num_retries=2)
    assert response.choices[0].message.content == "Recovered."
    assert server.request_count == 2


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply.error(500), InternalServerError),
        (Reply.error(503), ServiceUnavailableError),
        (Reply.error(400), BadRequestError),
        (Reply.context_overflow(), ContextWindowExceededError),
    ],
)
async def test_http_errors_map_to_litellm_exceptions(reply: Reply, error: type[Exception]) -> None:
    with ScriptedOpenAIServer([reply]) as server, pytest.raises(error):
        await complete(server)


async def test_context_overflow_is_not_retried() -> None:
    with ScriptedOpenAIServer([Reply.context_overflow(), Reply.text("unused")]) as server:
        with pytest.raises(ContextWindowExceededError, match="maximum context length"):
            await complete(server, num_retries=2)
        assert server.request_count == 1


async def test_delayed_reply_times_out_and_server_stops_promptly() -> None:
    started = time.monotonic()
    with (
        ScriptedOpenAIServer([Reply.text("late", delay=5.0)]) as server,
        pytest.raises(Timeout),
    ):
        await complete(server, timeout=0.2)
    assert time.monotonic() - started < 3.0


async def test_script_is_served_in_order_then_fails_loudly() -> None:
    with ScriptedOpenAIServer([Reply.text("one"), Reply.text("two")]) as server:
        replies = [(await complete(server)).choices[0].message.content for _ in range(2)]
        with pytest.raises(InternalServerError, match="script exhausted"):
            await complete(server)
    assert replies == ["one", "two"]
    assert server.request_count == 3


async def test_sync_callable_responder_branches_on_last_message() -> None:
    def responder(request: ChatRequest) -> Reply:
        last = request.last_message or {}
        if last.get("role") == "tool":
            return Reply.text(f"It is {last['content']}.")
        return Reply.tool_call("get_weather", {"city": "Paris"})

    with ScriptedOpenAIServer(responder) as server:
        first = await complete(server, tools=TOOLS)
        call = first.choices[0].message.tool_calls[0]
        history = [
            *MESSAGES,
            first.choices[0].message.model_dump(),
            {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
        ]
        second = await complete(server, tools=TOOLS, messages=history)
    assert second.choices[0].message.content == "It is sunny."
    assert server.pending_replies == 0


async def test_async_callable_responder_sees_tools_and_model() -> None:
    async def responder(request: ChatRequest) -> Reply:
        await asyncio.sleep(0)
        return Reply.text(f"{request.model}: {','.join(request.tool_names) or 'no tools'}")

    async with ScriptedOpenAIServer(responder) as server:
        with_tools = await complete(server, tools=TOOLS, model="openai/agent-model")
        without = await complete(server, model="openai/user-model")
    assert with_tools.choices[0].message.content == "agent-model: get_weather"
    assert without.choices[0].message.content == "user-model: no tools"


async def test_request_log_keeps_tools_seed_and_sampling_parameters() -> None:
    with ScriptedOpenAIServer([Reply.text("ok")]) as server:
        await complete(server, tools=TOOLS, tool_choice="auto", seed=1234, temperature=0.3, max_tokens=64)
    [request] = server.requests
    assert request.model == "gpt-4o-mini"
    assert request.messages == MESSAGES
    assert request.tools == TOOLS
    assert request.tool_names == ["get_weather"]
    assert request.tool_choice == "auto"
    assert (request.seed, request.temperature) == (1234, 0.3)
    assert request.model_extra == {"max_tokens": 64}


async def test_stream_requests_are_rejected_clearly() -> None:
    with ScriptedOpenAIServer([Reply.text("unused")]) as server:
        with pytest.raises(BadRequestError, match="does not support stream=true"):
            await complete(server, stream=True)
        assert server.pending_replies == 1


async def test_raw_http_paths_headers_and_invalid_bodies() -> None:
    body = {"model": "m", "messages": MESSAGES}
    with ScriptedOpenAIServer([Reply.text("no prefix"), Reply.error(429, retry_after=7)]) as server:
        root = server.base_url.removesuffix("/v1")
        status, payload, _ = await post_raw(f"{root}/chat/completions", body)
        assert (status, payload["object"], payload["model"]) == (200, "chat.completion", "m")
        assert payload["choices"][0]["message"] == {"role": "assistant", "content": "no prefix"}
        status, payload, headers = await post_raw(f"{server.base_url}/chat/completions", body)
        assert (status, headers["Retry-After"]) == (429, "7")
        assert payload["error"]["code"] == "rate_limit_exceeded"
        status, payload, _ = await post_raw(f"{server.base_url}/chat/completions", {"messages": []})
        assert (status, payload["error"]["type"]) == (400, "invalid_request_error")
    assert server.request_count == 2


async def test_responder_mistakes_become_loud_server_errors() -> None:
    def responder(request: ChatRequest) -> Reply:
        if request.model == "boom":
            raise RuntimeError("responder bug")
        return "not a reply"  # type: ignore[return-value]

    with ScriptedOpenAIServer(responder) as server:
        url = f"{server.base_url}/chat/completions"
        status, payload, _ = await post_raw(url, {"model": "boom", "messages": MESSAGES})
        assert (status, payload["error"]["message"]) == (
            500,
            "ScriptedOpenAIServer responder raised RuntimeError('responder bug')",
        )
        status, payload, _ = await post_raw(url, {"model": "other", "messages": MESSAGES})
        assert status == 500
        assert "not a Reply" in payload["error"]["message"]


async def test_concurrent_slow_requests_are_served_in_parallel() -> None:
    count, latency = 200, 0.3
    with ScriptedOpenAIServer(lambda request: Reply.text(request.model), latency=latency) as server:
        url = f"{server.base_url}/chat/completions"
        started = time.monotonic()
        results = await asyncio.gather(
            *(post_raw(url, {"model": f"m{i}", "messages": MESSAGES}) for i in range(count))
        )
        elapsed = time.monotonic() - started
    assert [payload["model"] for _, payload, _ in results] == [f"m{i}" for i in range(count)]
    assert server.request_count == count
    assert latency <= elapsed < count * latency / 10


def test_lifecycle_outside_an_event_loop() -> None:
    server = ScriptedOpenAIServer([])
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    server.start()
    assert server.base_url.startswith("http://127.0.0.1:")
    assert server.base_url.endswith("/v1")
    with pytest.raises(RuntimeError, match="already started"):
        server.start()
    server.stop()
    server.stop()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url


@pytest.mark.parametrize(
    "fields",
    [
        {"status": 200, "error_detail": {"message": "x", "type": "server_error"}},
        {"status": 500},
        {"status": 302, "error_detail": {"message": "x", "type": "server_error"}},
        {"status": 500, "content": "x", "error_detail": {"message": "x", "type": "server_error"}},
        {"status": 429, "finish_reason": "stop", "error_detail": {"message": "x", "type": "requests"}},
        {"delay": -1.0},
    ],
)
def test_inconsistent_replies_are_rejected(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Reply.model_validate(fields)
