"""The native transport: OpenAI-compatible chat completions over aiohttp, with orjson on the wire.

One `ClientSession` per event loop is shared by every seat on that loop, so connections are reused across
simulations. The session closes itself when its loop shuts down (`asyncio.run` finalises the loop's
asynchronous generators, and the session's keeper is one).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import orjson

from tau2.errors import UserInputError
from tau2.llm._pricing import cost_of
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import (
    NATIVE_PROVIDERS,
    OPENAI_API_BASE,
    Completion,
    EmptyChoicesError,
    ModelToolCall,
    TransportName,
    endpoint,
    host_keys,
    provider_of,
    replied,
)
from tau2.llm._usage import Usage

if TYPE_CHECKING:
    import aiohttp

MAX_CONNECTIONS = 1024
"""Open connections per event loop: enough for a thousand simulations in flight; `--rate-limit` caps a
provider below that."""

CONNECT_TIMEOUT_S = 30.0
"""Seconds to open a connection; the whole request is bounded by the client's per-attempt timeout
(`ModelSpec.timeout_s`, enforced around every transport)."""

CLIENT_ARGS = frozenset({"api_key", "extra_headers", "extra_body", "drop_params"})
"""`model_args` the native transport consumes itself instead of sending them as request fields."""

KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "hosted_vllm": "HOSTED_VLLM_API_KEY"}
"""Environment variables holding a provider's API key when `model_args` gives none."""


class ProviderHTTPError(Exception):
    """An HTTP error answer of the provider, with what classifying and backing off need."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.headers = headers


class NativeTransport:
    """Sends a seat's requests straight to its server's `/chat/completions` endpoint."""

    name: TransportName = "native"

    def __init__(self, spec: ModelSpec) -> None:
        assert spec.name is not None
        provider = provider_of(spec.name)
        api_base = spec.api_base.for_request() if spec.api_base else None
        if api_base is None and provider == "openai":
            api_base = OPENAI_API_BASE
        if api_base is None:
            raise UserInputError(
                f"{spec.name}: the native transport needs an API base for a {provider or 'bare'} model"
            )
        self._model = spec.name
        self._url = endpoint(api_base, "chat/completions")
        args = spec.args.for_request()
        self._fields: dict[str, Any] = {key: value for key, value in args.items() if key not in CLIENT_ARGS}
        served = spec.name[len(provider) + 1 :] if provider in NATIVE_PROVIDERS else spec.name
        self._fields["model"] = served
        extra_body = args.get("extra_body")
        if isinstance(extra_body, dict):
            self._fields.update(extra_body)
        self._headers = {"Content-Type": "application/json"}
        key = args.get("api_key") or os.environ.get(KEY_VARIABLES.get(provider, ""), "")
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        extra_headers = args.get("extra_headers")
        if isinstance(extra_headers, dict):
            self._headers.update({str(name): str(value) for name, value in extra_headers.items()})
        self.limit_keys = [*host_keys(api_base), provider or spec.name]

    async def send(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, seed: int | None
    ) -> Completion:
        """POST one request and parse the answer; HTTP errors raise `ProviderHTTPError`, network
        failures `ConnectionError`. The caller bounds its duration (`ModelClient` does)."""
        body = {**self._fields, "messages": messages}
        if tools:
            body["tools"] = tools
        if seed is not None:
            body["seed"] = seed
        import aiohttp  # loaded by `shared_session` already: a lookup, not an import

        session = await shared_session()
        try:
            async with session.post(self._url, data=orjson.dumps(body), headers=self._headers) as response:
                payload = await response.read()
                status, headers = response.status, response.headers
        except aiohttp.ClientError as error:
            raise ConnectionError(f"{type(error).__name__}: {error}") from error
        if status >= 400:
            raise ProviderHTTPError(status, _error_message(payload), dict(headers))
        return _completion(_decode(payload, status, headers), self._model)


def _decode(payload: bytes, status: int, headers: Mapping[str, str]) -> dict[str, Any]:
    """The reply's JSON object; anything else is a provider fault, retried as a server error."""
    data = _loads(payload)
    if not isinstance(data, dict):
        raise ProviderHTTPError(502, f"the reply (HTTP {status}) is not a JSON object", dict(headers))
    return data


def _loads(payload: bytes) -> Any:
    """The JSON value of a body, or None when it is not JSON.

    orjson refuses lone surrogate escapes (`"\\ud83d"`), which are valid JSON a model can produce; the
    standard library reads them, and `Completion` and `describe` replace them."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        try:
            return json.loads(payload)
        except ValueError:
            return None


def _error_message(payload: bytes) -> str:
    """The message of an OpenAI-format error body (with its code), or the body's text."""
    data = _loads(payload)
    if data is None:
        return payload.decode(errors="replace").strip() or "no message"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        code = error.get("code")
        message = str(error.get("message") or "no message")
        return f"{message} ({code})" if code else message
    if isinstance(error, str):
        return error
    return str(data)


def _completion(data: dict[str, Any], model: str) -> Completion:
    """Our view of a `chat.completion` object: text, raw tool calls, finish reason, tokens and cost."""
    choices = data.get("choices")
    if not choices:
        if "error" in data:
            raise ProviderHTTPError(500, _error_message(orjson.dumps(data)), {})
        raise EmptyChoicesError("the provider answered without any choice")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise EmptyChoicesError("the provider answered a choice without a message")
    calls = [
        ModelToolCall(
            id=call.get("id") or None,
            name=str(function.get("name") or ""),
            arguments=_raw_arguments(function.get("arguments")),
        )
        for call in message.get("tool_calls") or []
        for function in [call.get("function") or {}]
    ]
    content = message.get("content")
    reported = data.get("usage") or {}
    prompt_tokens = max(0, int(reported.get("prompt_tokens") or 0))
    completion_tokens = max(0, int(reported.get("completion_tokens") or 0))
    usage = Usage(
        calls=1,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=cost_of(model, prompt_tokens, completion_tokens),
    )
    text = content if isinstance(content, str) else None
    finish_reason = choice.get("finish_reason")
    return replied(text, calls, finish_reason if isinstance(finish_reason, str) else None, usage)


def _raw_arguments(arguments: Any) -> str:
    """Tool-call arguments as text; a few servers hand back an already decoded object."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else orjson.dumps(arguments).decode()


_sessions: WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[aiohttp.ClientSession, AsyncIterator[None]]]
_sessions = WeakKeyDictionary()


async def shared_session() -> aiohttp.ClientSession:
    """The running loop's session, created on first use (aiohttp is imported then, not with this module:
    commands that call no model never pay for it)."""
    import aiohttp

    loop = asyncio.get_running_loop()
    entry = _sessions.get(loop)
    if entry is not None and not entry[0].closed:
        return entry[0]
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=MAX_CONNECTIONS, limit_per_host=0),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT_S),
        json_serialize=lambda value: orjson.dumps(value).decode(),
    )
    keeper = _keep_until_loop_ends(session)
    await anext(keeper)
    _sessions[loop] = (session, keeper)
    return session


async def _keep_until_loop_ends(session: aiohttp.ClientSession) -> AsyncIterator[None]:
    """Suspended for the loop's lifetime; the loop's shutdown closes it, and with it the session."""
    try:
        yield
    finally:
        await session.close()
