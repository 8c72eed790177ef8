"""One chat completion through litellm, with our own retries, rate limits and usage accounting."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from tau2.errors import UserInputError
from tau2.llm._errors import ContextOverflowError, InfrastructureError
from tau2.llm._ledger import usage_of
from tau2.llm._limits import RateLimits, Sleep, default_limits
from tau2.llm._retries import Failure, RetryPolicy, classify, describe, retry_after_s
from tau2.llm._spec import ModelSpec
from tau2.llm._usage import Usage

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


class ModelToolCall(BaseModel):
    """A tool call as the model wrote it: arguments are the raw text, parsed later by the actor."""

    model_config = ConfigDict(frozen=True)

    id: str | None
    name: str
    arguments: str


class Completion(BaseModel):
    """The model's reply to one request, and what the request cost."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    tool_calls: list[ModelToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage


def check_spec(spec: ModelSpec) -> str:
    """The spec's model name, after checking its arguments leave the client's fields alone; raises
    `UserInputError`."""
    clash = sorted(RESERVED_ARGS & set(spec.args))
    if clash:
        raise UserInputError(
            f"arguments of model {spec.name!r} may not set {', '.join(clash)} (set by the spec or the client)"
        )
    return spec.name


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
    """Ask `spec.name` for the next assistant message.

    Transient failures are retried up to `spec.max_retries` times with backoff; raises
    `ContextOverflowError` at once when the conversation is too long, and `InfrastructureError` when
    the provider keeps failing or refuses the request.
    """
    model = check_spec(spec)
    litellm = _litellm()
    request: dict[str, Any] = {
        **spec.args,
        "model": model,
        "messages": messages,
        "timeout": spec.timeout_s,
        "num_retries": 0,
        "max_retries": 0,
    }
    if spec.api_base:
        request["api_base"] = spec.api_base
    if tools:
        request["tools"] = tools
    if seed is not None:
        request["seed"] = seed
    policy = retry or RetryPolicy()
    keys = _limit_keys(litellm, model, spec.api_base)
    table = limits or default_limits()
    attempt = 0
    while True:
        try:
            async with table.slot(keys):
                response = await litellm.acompletion(**request)
            break
        except Exception as exc:
            failure = classify(exc)
            if failure is Failure.CONTEXT_OVERFLOW:
                raise ContextOverflowError(f"{spec.name}: {describe(exc)}") from exc
            if failure is Failure.PERMANENT:
                raise InfrastructureError(f"{spec.name}: {describe(exc)}") from exc
            if attempt >= spec.max_retries:
                raise InfrastructureError(
                    f"{spec.name}: gave up after {attempt + 1} attempts: {describe(exc)}"
                ) from exc
            await sleep(policy.delay_s(attempt, retry_after_s(exc)))
            attempt += 1
    return _completion(response, model)


def _litellm() -> Any:
    """Import litellm on first use (it is slow to import) with its console banners off."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _limit_keys(litellm: Any, model: str, api_base: str | None) -> list[str]:
    """Rate-limit keys of a request, most specific first: API host, host name, provider."""
    keys: list[str] = []
    if api_base:
        parts = urlsplit(api_base)
        keys += [key for key in (parts.netloc, parts.hostname) if key]
    try:
        keys.append(str(litellm.get_llm_provider(model=model, api_base=api_base)[1]))
    except Exception:  # an unresolvable name fails on the request itself, with the provider's reason
        keys.append(model.split("/", 1)[0])
    return keys


def _completion(response: Any, model: str) -> Completion:
    """Our view of a litellm `ModelResponse`: text, raw tool calls, finish reason and usage."""
    usage = usage_of(response, model)
    choices = getattr(response, "choices", None) or []
    if not choices:
        return Completion(usage=usage)
    message = choices[0].message
    calls = [
        ModelToolCall(
            id=call.id or None,
            name=str(call.function.name or ""),
            arguments=_raw_arguments(call.function.arguments),
        )
        for call in message.tool_calls or []
    ]
    content = message.content if isinstance(message.content, str) else None
    return Completion(text=content, tool_calls=calls, finish_reason=choices[0].finish_reason, usage=usage)


def _raw_arguments(arguments: Any) -> str:
    """Tool-call arguments as text; a few providers hand back an already decoded object."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)
