"""One chat completion through a seat's transport, with our own retries, rate limits and usage accounting."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tau2.errors import UserInputError
from tau2.llm._errors import AuthenticationError, ContextOverflowError, InfrastructureError
from tau2.llm._hooks import current_settings
from tau2.llm._limits import Clock, RateLimits, Sleep, default_limits
from tau2.llm._retries import Failure, RetryPolicy, classify, describe, retry_after_s
from tau2.llm._secrets import environment_secrets
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import Completion, ModelToolCall, Transport, resolve_transport

__all__ = ["RESERVED_ARGS", "Completion", "ModelClient", "ModelToolCall", "check_spec", "complete"]

RESERVED_ARGS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "api_base",
        "base_url",
        "seed",
        "timeout",
        "num_retries",
        "max_retries",
        "stream",
        "fallbacks",
        "context_window_fallback_dict",
        "mock_response",
    }
)
"""Request fields owned by the client (or that would hide a failure), so `model_args` may not set them."""


def check_spec(spec: ModelSpec) -> str:
    """The spec's model name, after checking the spec can drive a model; raises `UserInputError`."""
    if not spec.name:
        raise UserInputError(f"actor spec {spec.name!r} names no model")
    clash = sorted(RESERVED_ARGS & set(spec.args))
    if clash:
        raise UserInputError(
            f"model_args of {spec.name!r} may not set {', '.join(clash)} (set by the spec or the client)"
        )
    return spec.name


class ModelClient:
    """One seat's model access: its transport, built once, behind our retries and rate limits.

    `retry` defaults to the policy in scope (`tau2.llm._hooks.call_settings`), else `RetryPolicy()`.
    """

    def __init__(
        self,
        spec: ModelSpec,
        *,
        retry: RetryPolicy | None = None,
        limits: RateLimits | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        check_spec(spec)
        self.spec = spec
        self.transport = _open_transport(spec)
        self._label = spec.name
        url_secrets = spec.api_base.secret_texts() if spec.api_base else []
        self._secrets = [*spec.args.secret_texts(), *url_secrets, *environment_secrets()]
        self._retry = retry
        self._limits = limits
        self._sleep = sleep
        self._clock = clock

    async def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *, seed: int | None
    ) -> Completion:
        """Ask the seat's model for the next assistant message.

        With a model cache in scope (`call_settings(cache=…)`), an answer stored for the same request
        comes back without sending anything (its usage marked as cached), and a new answer is stored.
        Transient failures are retried with backoff (see `RetryPolicy`), each attempt cut off after
        `spec.timeout_s`; raises `ContextOverflowError` at once when the conversation is too long, and
        `InfrastructureError` when the provider keeps failing or refuses the request.
        """
        settings = current_settings()
        cache = settings.cache
        if cache is None:
            completion = await self._send(messages, tools, seed)
        else:
            key = cache.key(self.spec, messages, tools, seed)
            stored = cache.get(key)
            if stored is None:
                # creating the entry's file can wait on the file system for milliseconds: not on this loop
                completion = await asyncio.to_thread(cache.put, key, await self._send(messages, tools, seed))
            else:
                completion = stored.model_copy(update={"usage": stored.usage.from_cache()})
        if settings.on_usage is not None:
            settings.on_usage(self._label, completion.usage)
        return completion

    async def _send(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, seed: int | None
    ) -> Completion:
        """The request sent, retried and rate-limited as `complete` describes."""
        settings = current_settings()
        policy = self._retry or settings.retry
        table = self._limits or default_limits()
        transport = self.transport
        timeout_s = self.spec.timeout_s
        started = self._clock()
        attempt = 0
        while True:
            try:
                gate = table.gate(transport.limit_keys)
                if gate is None:
                    async with asyncio.timeout(timeout_s):
                        completion = await transport.send(messages, tools, seed)
                else:
                    async with gate.hold(), asyncio.timeout(timeout_s):
                        completion = await transport.send(messages, tools, seed)
                break
            except Exception as exc:
                wait = self._wait_after(exc, policy, attempt, started)
                await self._sleep(wait)
                attempt += 1
        return completion

    def describe(self, exc: BaseException) -> str:
        """`exc` as one short line without any credential this client may send."""
        return describe(exc, self._secrets)

    def _wait_after(self, exc: Exception, policy: RetryPolicy, attempt: int, started: float) -> float:
        """Seconds to wait before the next attempt, or the typed failure `exc` amounts to."""
        failure = classify(exc)
        if failure is Failure.CONTEXT_OVERFLOW:
            raise ContextOverflowError(f"{self._label}: {self.describe(exc)}") from exc
        if failure is Failure.AUTHENTICATION:
            raise AuthenticationError(f"{self._label}: authentication failed: {self.describe(exc)}") from exc
        if failure is Failure.PERMANENT:
            raise InfrastructureError(f"{self._label}: {self.describe(exc)}") from exc
        elapsed = self._clock() - started
        spec = self.spec
        wait = policy.next_wait_s(attempt, elapsed, spec.max_retries, retry_after_s(exc), spec.retry_budget_s)
        if wait is None:
            tried = f"gave up after {attempt + 1} attempts in {elapsed:.1f} s"
            raise InfrastructureError(f"{self._label}: {tried}: {self.describe(exc)}") from exc
        return wait


async def complete(
    spec: ModelSpec,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    *,
    seed: int | None,
    retry: RetryPolicy | None = None,
    limits: RateLimits | None = None,
    sleep: Sleep = asyncio.sleep,
) -> Completion:
    """One call of `ModelClient(spec, …).complete`; actors keep a client instead, to build it once."""
    client = ModelClient(spec, retry=retry, limits=limits, sleep=sleep)
    return await client.complete(messages, tools, seed=seed)


def _open_transport(spec: ModelSpec) -> Transport:
    """The transport object of a seat, built once per actor; refuses a native seat it cannot serve."""
    if not spec.name:
        raise UserInputError(f"actor spec {spec.name!r} names no model")
    if resolve_transport(spec) == "litellm":
        from tau2.llm._litellm import LitellmTransport

        return LitellmTransport(spec)
    from tau2.llm._native import NativeTransport

    return NativeTransport(spec)
