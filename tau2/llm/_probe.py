"""Probing a model before a run: reachable, authenticated, answers a chat, makes proper tool calls (forced
and parallel), how large its context window is and whether litellm can price it."""

from __future__ import annotations

import json
import os
import time
from typing import Any, Literal

import aiohttp
from pydantic import BaseModel, ConfigDict

from tau2.llm._client import ModelClient
from tau2.llm._errors import AuthenticationError, InfrastructureError
from tau2.llm._native import KEY_VARIABLES
from tau2.llm._preflight import missing_credentials
from tau2.llm._pricing import token_prices
from tau2.llm._secrets import SecretArgs
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import NATIVE_PROVIDERS, Completion, provider_of

Outcome = Literal["pass", "warn", "fail", "info"]

_LOOKUP = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Look up an order by its id.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
}
_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx", "n_ctx_train")
"""Where servers report a model's context window in `/v1/models`: vLLM's `max_model_len`, llama.cpp's
`meta.n_ctx_train`, LM Studio's and others' spellings."""


class Check(BaseModel):
    """One finding about a model: what was checked, how it came out, and the detail in words."""

    model_config = ConfigDict(frozen=True)

    name: str
    outcome: Outcome
    detail: str


async def probe_model(spec: ModelSpec) -> list[Check]:
    """Every check of `spec`, in order; a check that cannot run after an earlier failure is left out.

    Each call is made once, without retries (a probe should answer in seconds), through the seat's own
    transport, so what passes here is what a run will see.
    """
    checks: list[Check] = []
    missing = missing_credentials(spec)
    if missing is not None:
        return [Check(name="credentials", outcome="fail", detail=missing)]
    client = ModelClient(spec.model_copy(update={"max_retries": 0, "retry_budget_s": None}))
    chat = await _chat(client, checks)
    if chat:
        await _forced_tool_call(client, checks)
        if checks[-1].outcome == "pass":
            await _parallel_tool_calls(client, checks)
    checks.append(await _context_window(spec))
    checks.append(_pricing(spec))
    return checks


async def _chat(client: ModelClient, checks: list[Check]) -> bool:
    """Reachable, authenticated and answering a short chat (with its latency); whether all three hold."""
    where = client.spec.api_base or "the provider's endpoint"
    started = time.perf_counter()
    try:
        completion = await client.complete(
            [{"role": "user", "content": "Reply with the single word: ready"}], seed=None
        )
    except AuthenticationError as error:
        checks.append(Check(name="reachable", outcome="pass", detail=f"{where} answered"))
        checks.append(Check(name="authenticated", outcome="fail", detail=_reason(client, error)))
        return False
    except InfrastructureError as error:
        network = _connection_failure(error)
        if network is not None:
            detail = f"cannot connect to {where}: {type(network).__name__}: {client.describe(network)}"
            checks.append(Check(name="reachable", outcome="fail", detail=detail))
            return False
        checks.append(Check(name="reachable", outcome="pass", detail=f"{where} answered"))
        checks.append(Check(name="answers a chat", outcome="fail", detail=_reason(client, error)))
        return False
    latency_ms = (time.perf_counter() - started) * 1000
    checks.append(Check(name="reachable", outcome="pass", detail=f"{where} answered"))
    checks.append(Check(name="authenticated", outcome="pass", detail="the request was accepted"))
    text = " ".join((completion.text or "").split())
    said = f"{text[:40]!r}" if text else "an empty reply" if not completion.tool_calls else "a tool call"
    checks.append(Check(name="answers a chat", outcome="pass", detail=f"{said} in {latency_ms:.0f} ms"))
    return True


async def _forced_tool_call(client: ModelClient, checks: list[Check]) -> None:
    """A named `tool_choice` must come back as a structured tool call with JSON-object arguments."""
    forced = {"type": "function", "function": {"name": "lookup_order"}}
    asked = [{"role": "user", "content": "Look up order A-17."}]
    try:
        completion = await _with_args(client, {"tool_choice": forced}).complete(asked, [_LOOKUP], seed=None)
    except InfrastructureError as error:
        detail = f"the server refused a request with tools: {_reason(client, error)}"
        checks.append(Check(name="tool calls", outcome="fail", detail=detail))
        return
    calls = completion.tool_calls
    if not calls:
        checks.append(Check(name="tool calls", outcome="fail", detail=_no_call(completion)))
        return
    call = calls[0]
    arguments = _object(call.arguments)
    if call.name != "lookup_order" or arguments is None:
        detail = f"asked for lookup_order with JSON arguments, got {call.name}({call.arguments})"
        checks.append(Check(name="tool calls", outcome="fail", detail=detail))
        return
    shown = json.dumps(arguments, ensure_ascii=False)
    checks.append(
        Check(name="tool calls", outcome="pass", detail=f"forced call came back: lookup_order({shown})")
    )


async def _parallel_tool_calls(client: ModelClient, checks: list[Check]) -> None:
    """With `tool_choice: required`, whether one reply carries several calls."""
    asked = [{"role": "user", "content": "Get the weather in Paris and in Tokyo, in one reply."}]
    try:
        completion = await _with_args(client, {"tool_choice": "required"}).complete(
            asked, [_WEATHER], seed=None
        )
    except InfrastructureError as error:
        detail = f"tool_choice=required was refused: {_reason(client, error)}"
        checks.append(Check(name="parallel tool calls", outcome="warn", detail=detail))
        return
    count = len(completion.tool_calls)
    if count >= 2:
        detail = f"{count} calls in one reply"
        checks.append(Check(name="parallel tool calls", outcome="pass", detail=detail))
    elif count == 1:
        detail = "one call per reply (the model or server does not make parallel calls)"
        checks.append(Check(name="parallel tool calls", outcome="warn", detail=detail))
    else:
        detail = f"tool_choice=required answered without a tool call: {_no_call(completion)}"
        checks.append(Check(name="parallel tool calls", outcome="warn", detail=detail))


def _no_call(completion: Completion) -> str:
    """Why a reply that should have held a tool call did not: text that looks like one, or anything."""
    text = (completion.text or "").strip()
    if _looks_like_a_call(text):
        return (
            "tool calls come back as text in the reply's content: the server lacks a tool-call parser "
            "(vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja); "
            "or read such text as calls with the seat's --agent-text-tool-calls / --user-text-tool-calls"
        )
    shown = " ".join(text.split())[:60]
    return f"no tool call came back ({repr(shown) if shown else 'an empty reply'})"


def _looks_like_a_call(text: str) -> bool:
    """Text holding a JSON tool call (`{"name": …, "arguments": …}`) or a `<tool_call>` block."""
    if "<tool_call>" in text:
        return True
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return False
    found = _object(text[start : end + 1])
    return found is not None and "name" in found and ("arguments" in found or "parameters" in found)


def _object(text: str) -> dict[str, Any] | None:
    """`text` parsed as a JSON object, or None."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _with_args(client: ModelClient, extra: dict[str, Any]) -> ModelClient:
    """A client of the same model with more request arguments."""
    return ModelClient(client.spec.model_copy(update={"args": client.spec.args.merged(SecretArgs(extra))}))


async def _context_window(spec: ModelSpec) -> Check:
    """The context window the server reports (`/v1/models`), else litellm's model info, else unknown."""
    reported = await _served_context(spec) if spec.api_base else None
    if reported is not None:
        return Check(
            name="context window", outcome="info", detail=f"{reported} tokens (reported by the server)"
        )
    known = _litellm_context(spec.name)
    if known is not None:
        return Check(name="context window", outcome="info", detail=f"{known} tokens (litellm's model info)")
    return Check(name="context window", outcome="info", detail="unknown (the server does not report it)")


async def _served_context(spec: ModelSpec) -> int | None:
    """The context window in the server's `GET /models` listing of the model, if it gives one."""
    assert spec.api_base is not None
    provider = provider_of(spec.name)
    served = spec.name[len(provider) + 1 :] if provider in NATIVE_PROVIDERS else spec.name
    headers = {}
    key = spec.args.for_request().get("api_key") or _environment_key(provider)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    url = spec.api_base.rstrip("/") + "/models"
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=min(spec.timeout_s, 10.0))) as session,
            session.get(url, headers=headers) as response,
        ):
            listing = await response.json(content_type=None) if response.status == 200 else None
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    models = [entry for entry in entries if isinstance(entry, dict)]
    matching = [entry for entry in models if entry.get("id") == served] or (
        models if len(models) == 1 else []
    )
    for entry in matching:
        meta = entry.get("meta")
        for source in (entry, meta if isinstance(meta, dict) else {}):
            for key_name in _CONTEXT_KEYS:
                value = source.get(key_name)
                if isinstance(value, int) and value > 0:
                    return value
    return None


def _environment_key(provider: str) -> str | None:
    """The provider's key from the environment, as the native transport reads it."""
    variable = KEY_VARIABLES.get(provider)
    return os.environ.get(variable) if variable else None


def _litellm_context(model: str) -> int | None:
    """The input-token limit litellm's model map lists for `model`, if any."""
    from tau2.llm._litellm import _litellm

    try:
        info = _litellm().get_model_info(model=model)
    except Exception:  # litellm raises for models it does not know
        return None
    value = info.get("max_input_tokens") or info.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else None


def _pricing(spec: ModelSpec) -> Check:
    """Whether litellm's cost map prices the model, and at what."""
    prices = token_prices(spec.name)
    if prices is None:
        detail = "not in litellm's cost map: costs will show as unpriced, not as free"
        return Check(name="pricing", outcome="warn", detail=detail)
    prompt, completion = (price * 1_000_000 for price in prices)
    detail = f"${prompt:.2f} in / ${completion:.2f} out per million tokens (litellm's cost map)"
    return Check(name="pricing", outcome="pass", detail=detail)


def _connection_failure(error: BaseException) -> BaseException | None:
    """The deepest network failure (refused, unresolved, timed out) behind `error`, if any: both
    transports wrap it in their own exceptions, litellm even as a server error."""
    found: BaseException | None = None
    seen: set[int] = set()
    current: BaseException | None = error.__cause__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError | TimeoutError):
            found = current
        current = current.__cause__ or current.__context__
    return found


def _reason(client: ModelClient, error: Exception) -> str:
    """The failure without the model-name prefix the client puts on it (nor any credential)."""
    cause = error.__cause__
    return client.describe(cause) if cause is not None else client.describe(error)
