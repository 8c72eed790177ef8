"""Tests of LLM access: requests, retries, typed failures, usage and cost, over HTTP against the local
scripted server. Every behaviour test runs through both transports (native and litellm), which must agree."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import asyncio
import socket
from typing import Any

import pytest
from pydantic import JsonValue

from tau2 import Usage
from tau2.errors import UserInputError
from tau2.llm import (
    Completion,
    ContextOverflowError,
    InfrastructureError,
    ModelClient,
    ModelSpec,
    RetryPolicy,
    call_settings,
    complete,
    resolve_transport,
)
from tau2.llm._retries import Failure, classify
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

PRICED = "openai/gpt-4o-mini"
UNPRICED = "openai/tau2-test-model"
MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "Hello"}]
FAST = RetryPolicy(base_delay_s=0.0, max_delay_s=0.0)


TRANSPORTS = ["native", "litellm"]


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """The transport under test; every test taking it runs once per transport."""
    return str(request.param)


def spec(base_url: str, transport: str, model: str = UNPRICED, **fields: Any) -> ModelSpec:
    """A spec pointed at the scripted server, with a dummy key (the server ignores it)."""
    model_args: dict[str, JsonValue] = {"api_key": "sk-test", **fields.pop("model_args", {})}
    return ModelSpec(name=model, api_base=base_url, args=model_args, transport=transport, **fields)


class Sleeps:
    """An injected sleep that records the delays asked for and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


async def call(
    server: ScriptedOpenAIServer, transport: str, sleeps: Sleeps | None = None, **fields: Any
) -> Completion:
    return await complete(
        spec(server.base_url, transport, **fields), MESSAGES, seed=None, retry=FAST, sleep=sleeps or Sleeps()
    )


async def test_text_reply_and_sampling_arguments_reach_the_server(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.text("Hi there")]) as server:
        completion = await complete(
            spec(server.base_url, transport, model_args={"temperature": 0.3, "top_p": 0.9, "max_tokens": 64}),
            MESSAGES,
            seed=1234,
        )
    assert completion.text == "Hi there"
    assert completion.tool_calls == []
    (request,) = server.requests
    assert request.model == "tau2-test-model"
    assert request.seed == 1234
    assert request.temperature == 0.3
    assert request.model_extra == {"top_p": 0.9, "max_tokens": 64}
    assert request.messages == MESSAGES
    assert request.tools is None


async def test_tools_are_sent_and_tool_calls_come_back_raw(transport: str) -> None:
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    async with ScriptedOpenAIServer([Reply.tool_call("lookup", '{"id": 1', call_id="c-1")]) as server:
        completion = await complete(spec(server.base_url, transport), MESSAGES, tools, seed=None)
    assert server.requests[0].tool_names == ["lookup"]
    assert server.requests[0].seed is None
    assert server.requests[0].model_extra == {}
    (tool_call,) = completion.tool_calls
    assert (tool_call.id, tool_call.name, tool_call.arguments) == ("c-1", "lookup", '{"id": 1')
    assert completion.finish_reason == "tool_calls"


async def test_rate_limit_then_success_is_retried_after_retry_after(transport: str) -> None:
    sleeps = Sleeps()
    async with ScriptedOpenAIServer([Reply.error(429, retry_after=7), Reply.text("ok")]) as server:
        completion = await call(server, transport, sleeps)
    assert completion.text == "ok"
    assert server.request_count == 2
    assert sleeps.delays == [7.0]


async def test_repeated_server_errors_exhaust_retries(transport: str) -> None:
    sleeps = Sleeps()
    replies = [Reply.error(500), Reply.error(502), Reply.error(503)]
    async with ScriptedOpenAIServer(replies) as server:
        with pytest.raises(InfrastructureError, match="gave up after 3 attempts") as caught:
            await call(server, transport, sleeps, max_retries=2)
    assert server.request_count == 3
    assert len(sleeps.delays) == 2
    assert "\n" not in str(caught.value)


async def test_context_overflow_is_typed_and_never_retried(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.context_overflow(), Reply.text("unused")]) as server:
        with pytest.raises(ContextOverflowError, match="maximum context length"):
            await call(server, transport)
    assert server.request_count == 1


async def test_overflow_reported_in_a_plain_bad_request_is_recognised(transport: str) -> None:
    message = "the request exceeds the available context size, try increasing it"
    async with ScriptedOpenAIServer([Reply.error(400, message)]) as server:
        with pytest.raises(ContextOverflowError):
            await call(server, transport)
    assert server.request_count == 1


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_fail_at_once(status: int, transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.error(status), Reply.text("unused")]) as server:
        with pytest.raises(InfrastructureError) as caught:
            await call(server, transport)
    assert server.request_count == 1
    assert "gave up" not in str(caught.value)


async def test_slow_replies_time_out_and_are_retried(transport: str) -> None:
    replies = [Reply.text("late", delay=2.0), Reply.text("late again", delay=2.0)]
    async with ScriptedOpenAIServer(replies) as server:
        with pytest.raises(InfrastructureError, match="gave up after 2 attempts"):
            await call(server, transport, timeout_s=0.2, max_retries=1)
    assert server.request_count == 2


async def test_timeout_then_success(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.text("late", delay=2.0), Reply.text("on time")]) as server:
        completion = await call(server, transport, timeout_s=0.2)
    assert completion.text == "on time"


async def test_connection_refused_is_transient(transport: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps = Sleeps()
    closed = spec(f"http://127.0.0.1:{port}/v1", transport, max_retries=1)
    with pytest.raises(InfrastructureError, match="gave up after 2 attempts"):
        await complete(closed, MESSAGES, seed=None, retry=FAST, sleep=sleeps)
    assert len(sleeps.delays) == 1


async def test_priced_model_records_tokens_and_cost(transport: str) -> None:
    import litellm

    usage = ScriptedUsage(prompt_tokens=1000, completion_tokens=200)
    async with ScriptedOpenAIServer([Reply.text("ok", usage=usage)]) as server:
        completion = await call(server, transport, model=PRICED)
    prices = litellm.model_cost["gpt-4o-mini"]
    expected = 1000 * prices["input_cost_per_token"] + 200 * prices["output_cost_per_token"]
    assert completion.usage.calls == 1
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (1000, 200)
    assert completion.usage.cost == pytest.approx(expected)
    assert completion.usage.cost is not None and completion.usage.cost > 0


async def test_unknown_model_is_unpriced_not_free(transport: str) -> None:
    usage = ScriptedUsage(prompt_tokens=10, completion_tokens=5)
    async with ScriptedOpenAIServer([Reply.text("ok", usage=usage)]) as server:
        completion = await call(server, transport, model=UNPRICED)
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (10, 5)
    assert completion.usage.cost is None


async def test_concurrent_calls_are_independent(transport: str) -> None:
    def answer(request: ChatRequest) -> Reply:
        return Reply.text(f"echo {request.messages[-1]['content']}", delay=0.05)

    async with ScriptedOpenAIServer(answer) as server:
        replies = await asyncio.gather(
            *(
                complete(spec(server.base_url, transport), [{"role": "user", "content": str(n)}], seed=n)
                for n in range(8)
            )
        )
    assert [reply.text for reply in replies] == [f"echo {n}" for n in range(8)]


def test_spec_without_model_or_with_reserved_arguments_is_rejected() -> None:
    from tau2.llm import check_spec

    with pytest.raises(UserInputError, match="fallbacks, seed"):
        check_spec(ModelSpec(name="x", args={"seed": 1, "fallbacks": ["y"]}))


def test_backoff_grows_with_jitter_and_honours_retry_after_up_to_a_cap() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, max_retry_after_s=30.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (6, 8.0)]:
        delay = policy.delay_s(attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert policy.delay_s(0, retry_after=12.0) == 12.0
    assert policy.delay_s(0, retry_after=300.0) == 30.0


def test_plain_timeouts_and_connection_errors_are_transient() -> None:
    assert classify(TimeoutError()) is Failure.TRANSIENT
    assert classify(ConnectionResetError()) is Failure.TRANSIENT
    assert classify(ValueError("bad")) is Failure.PERMANENT


async def test_empty_choices_are_a_provider_fault_retried(transport: str) -> None:
    sleeps = Sleeps()
    async with ScriptedOpenAIServer([Reply.without_choices(), Reply.text("ok")]) as server:
        completion = await call(server, transport, sleeps)
    assert completion.text == "ok"
    assert len(sleeps.delays) == 1


async def test_empty_choices_every_time_give_up(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.without_choices()] * 2) as server:
        with pytest.raises(InfrastructureError, match="gave up after 2 attempts"):
            await call(server, transport, max_retries=1)


async def test_authentication_failure_is_never_retried_even_with_a_budget(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.error(401), Reply.text("unused")]) as server:
        client = ModelClient(
            spec(server.base_url, transport), retry=RetryPolicy(budget_s=60.0), sleep=Sleeps()
        )
        with pytest.raises(InfrastructureError, match=r"(?i)api key"):
            await client.complete(MESSAGES, seed=None)
    assert server.request_count == 1


class FakeTime:
    """A clock that only moves when the injected sleep is awaited."""

    def __init__(self) -> None:
        self.now = 0.0
        self.delays: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.delays.append(seconds)
        self.now += seconds


async def test_retry_budget_outlasts_max_retries_until_the_server_is_back(transport: str) -> None:
    clock = FakeTime()
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, budget_s=60.0)
    replies = [Reply.error(503)] * 9 + [Reply.text("back")]
    async with ScriptedOpenAIServer(replies) as server:
        client = ModelClient(
            spec(server.base_url, transport, max_retries=1),
            retry=policy,
            sleep=clock.sleep,
            clock=clock.clock,
        )
        completion = await client.complete(MESSAGES, seed=None)
    assert completion.text == "back"
    assert server.request_count == 10
    assert max(clock.delays) <= 8.0
    assert clock.now <= 60.0


async def test_retry_budget_spent_gives_up_with_the_last_wait_cut_to_what_remains(transport: str) -> None:
    clock = FakeTime()
    policy = RetryPolicy(base_delay_s=4.0, max_delay_s=4.0, budget_s=10.0)
    async with ScriptedOpenAIServer(Reply.error(500) for _ in range(20)) as server:
        client = ModelClient(
            spec(server.base_url, transport), retry=policy, sleep=clock.sleep, clock=clock.clock
        )
        with pytest.raises(InfrastructureError, match="gave up after"):
            await client.complete(MESSAGES, seed=None)
    assert clock.now == pytest.approx(10.0)
    assert server.request_count == len(clock.delays) + 1


async def test_a_hung_server_is_cut_off_by_the_request_timeout(transport: str) -> None:
    async with ScriptedOpenAIServer([Reply.text("never", delay=30.0)]) as server:
        client = ModelClient(spec(server.base_url, transport, timeout_s=0.3, max_retries=0), sleep=Sleeps())
        started = asyncio.get_running_loop().time()
        with pytest.raises(InfrastructureError, match="gave up after 1 attempts"):
            await client.complete(MESSAGES, seed=None)
    assert asyncio.get_running_loop().time() - started < 10.0


async def test_usage_callback_hears_every_successful_call(transport: str) -> None:
    heard: list[tuple[str, Usage]] = []
    usage = ScriptedUsage(prompt_tokens=7, completion_tokens=3)
    replies = [Reply.error(500), Reply.text("a", usage=usage), Reply.text("b", usage=usage)]
    async with ScriptedOpenAIServer(replies) as server:
        with call_settings(on_usage=lambda label, used: heard.append((label, used)), retry=FAST):
            client = ModelClient(spec(server.base_url, transport), sleep=Sleeps())
            for _ in range(2):
                await client.complete(MESSAGES, seed=None)
    assert [label for label, _ in heard] == [UNPRICED] * 2
    assert {(used.prompt_tokens, used.completion_tokens, used.calls) for _, used in heard} == {(7, 3, 1)}


SCRIPT = [
    Reply.tool_call(
        "lookup", {"id": 1}, call_id="c-1", usage=ScriptedUsage(prompt_tokens=9, completion_tokens=3)
    ),
    Reply.tool_call("lookup", '{"id": ', call_id="c-2"),
    Reply.parallel_tool_calls([]),
    Reply.text("done"),
    Reply.empty(),
]


@pytest.mark.parametrize("model", [PRICED, UNPRICED])
async def test_both_transports_return_identical_completions(model: str) -> None:
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    results: dict[str, list[Completion]] = {}
    bodies: dict[str, list[ChatRequest]] = {}
    for name in TRANSPORTS:
        async with ScriptedOpenAIServer(SCRIPT) as server:
            client = ModelClient(spec(server.base_url, name, model=model, model_args={"temperature": 0.5}))
            results[name] = [await client.complete(MESSAGES, tools, seed=3) for _ in SCRIPT]
        bodies[name] = server.requests
    assert results["native"] == results["litellm"]
    assert bodies["native"] == bodies["litellm"]


def test_auto_picks_native_for_openai_style_models_with_an_api_base() -> None:
    base = "http://127.0.0.1:8000/v1"
    assert resolve_transport(ModelSpec(name="openai/m", api_base=base)) == "native"
    assert resolve_transport(ModelSpec(name="hosted_vllm/Qwen/Q", api_base=base)) == "native"
    assert resolve_transport(ModelSpec(name="openai/gpt-4o-mini")) == "litellm"
    assert resolve_transport(ModelSpec(name="anthropic/claude", api_base=base)) == "litellm"
    assert resolve_transport(ModelSpec(name="ollama_chat/llama3", api_base=base)) == "litellm"
    forced = ModelSpec(name="openai/m", api_base=base, transport="litellm")
    assert resolve_transport(forced) == "litellm"


def test_native_transport_without_an_api_base_is_refused_for_non_openai_models() -> None:
    with pytest.raises(UserInputError, match="needs an API base"):
        ModelClient(ModelSpec(name="hosted_vllm/q", transport="native"))
