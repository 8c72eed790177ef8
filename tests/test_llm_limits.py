"""Tests of per-provider rate limits: concurrency caps over HTTP, per-minute pacing on a fake clock."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import asyncio

import pytest
from pydantic import ValidationError

from tau2.llm import ModelSpec, ProviderLimit, RateLimits, complete, default_limits
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer


class FakeTime:
    """A clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class InFlight:
    """A server responder that counts how many requests it is answering at once."""

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0

    async def __call__(self, request: ChatRequest) -> Reply:
        self.current += 1
        self.peak = max(self.peak, self.current)
        await asyncio.sleep(0.05)
        self.current -= 1
        return Reply.text("ok")


async def burst(base_url: str, limits: RateLimits | None, count: int = 6) -> None:
    spec = ModelSpec(name="openai/tau2-test-model", api_base=base_url, args={"api_key": "k"})
    messages = [{"role": "user", "content": "hi"}]
    await asyncio.gather(*(complete(spec, messages, seed=None, limits=limits) for _ in range(count)))


async def test_concurrency_cap_by_api_host() -> None:
    responder = InFlight()
    async with ScriptedOpenAIServer(responder) as server:
        await burst(server.base_url, RateLimits({"127.0.0.1": ProviderLimit(max_concurrent=2)}))
        assert responder.peak == 2
        assert server.request_count == 6


async def test_concurrency_cap_by_provider() -> None:
    responder = InFlight()
    async with ScriptedOpenAIServer(responder) as server:
        await burst(server.base_url, RateLimits({"openai": ProviderLimit(max_concurrent=1)}))
    assert responder.peak == 1


async def test_no_matching_limit_means_no_cap() -> None:
    responder = InFlight()
    async with ScriptedOpenAIServer(responder) as server:
        await burst(server.base_url, RateLimits({"anthropic": ProviderLimit(max_concurrent=1)}))
    assert responder.peak == 6


async def test_requests_per_minute_are_paced() -> None:
    time = FakeTime()
    limits = RateLimits(
        {"openai": ProviderLimit(max_concurrent=5, requests_per_minute=2)}, clock=time.clock, sleep=time.sleep
    )
    starts = []
    for _ in range(5):
        async with limits.slot(["openai"]):
            starts.append(time.now)
    assert starts == [0.0, 0.0, 60.0, 60.0, 120.0]


async def test_most_specific_key_wins_and_limits_can_be_removed() -> None:
    limits = RateLimits({"openai": ProviderLimit(max_concurrent=8)})
    limits.configure("localhost:8000", ProviderLimit(max_concurrent=1))
    assert limits.limit_for(["localhost:8000", "localhost", "openai"]) == (
        "localhost:8000",
        ProviderLimit(max_concurrent=1),
    )
    limits.configure("localhost:8000", None)
    assert limits.limit_for(["localhost:8000", "localhost", "openai"]) == (
        "openai",
        ProviderLimit(max_concurrent=8),
    )


def test_limits_are_validated_and_the_default_table_starts_empty() -> None:
    with pytest.raises(ValidationError):
        ProviderLimit(max_concurrent=0)
    with pytest.raises(ValidationError):
        ProviderLimit(max_concurrent=1, requests_per_minute=0)
    assert default_limits().limit_for(["openai", "anthropic"]) is None
