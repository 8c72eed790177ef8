"""Probing a model before a run: reachable, authenticated, answers a chat, makes proper tool calls (as
runs ask for them, forced, and parallel; written as text, told apart by their form and read as a seat
with text tool calls would), how large its context window is and whether litellm can price it."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from tau2._jsonfile import parse_json
from tau2.llm._client import ModelClient
from tau2.llm._errors import AuthenticationError, InfrastructureError
from tau2.llm._native import KEY_VARIABLES
from tau2.llm._preflight import missing_credentials
from tau2.llm._pricing import token_prices
from tau2.llm._secrets import SecretArgs
from tau2.llm._spec import ModelSpec
from tau2.llm._text_calls import read_text_calls
from tau2.llm._transports import NATIVE_PROVIDERS, Completion, ModelToolCall, endpoint, provider_of

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
PROBE_MAX_TOKENS = 256
"""The token cap of the probes that force a tool call (`tool_choice: required`): room for two small calls
written out, in tags or a fence, yet a model that will not stop (under a server's grammar for required
calls, a small model may repeat its call until the server's own limit) cannot hold a slow server for
minutes. A seat's own smaller cap is kept."""
_CAP_KEYS = ("max_completion_tokens", "max_tokens")
"""The request arguments that cap a reply's tokens, in the order a seat's own cap is looked for."""
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx", "n_ctx_train")
"""Where servers report a model's context window in `/v1/models`: vLLM's `max_model_len`, llama.cpp's
`meta.n_ctx_train`, LM Studio's and others' spellings."""


class Check(BaseModel):
    """One finding about a model: what was checked, how it came out, and the detail in words."""

    model_config = ConfigDict(frozen=True)

    name: str
    outcome: Outcome
    detail: str


async def probe_model(
    spec: ModelSpec, *, text_tool_calls: bool = False, text_calls_option: str | None = None
) -> list[Check]:
    """Every check of `spec`, in order; a check that cannot run after an earlier failure is left out.

    Each call is made once, without retries (a probe should answer in seconds), through the seat's own
    transport, so what passes here is what a run will see. `text_tool_calls`: the seat reads tool calls
    the model writes as text (as the run option `text_calls_option` makes it do), so such calls count when
    tau2 can read them.
    """
    checks: list[Check] = []
    missing = missing_credentials(spec)
    if missing is not None:
        return [Check(name="credentials", outcome="fail", detail=missing)]
    client = ModelClient(spec.model_copy(update={"max_retries": 0, "retry_budget_s": None}))
    reading = _Reading(text_tool_calls, text_calls_option)
    if await _chat(client, checks) and await _tool_calls(client, checks, reading):
        await _forced_tool_choice(client, checks, reading)
        await _parallel_tool_calls(client, checks, reading)
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


@dataclass(frozen=True)
class _Reading:
    """How the seat treats tool calls written as text: read (with its run option `option`) or not."""

    enabled: bool
    option: str | None

    def calls(self, completion: Completion) -> tuple[list[ModelToolCall], str | None]:
        """The reply's calls as the seat would take them, and, when they came as text, how it was read
        (or why it could not be); (no calls, None) for a reply with neither."""
        if completion.tool_calls:
            return completion.tool_calls, None
        text = completion.text or ""
        reading = read_text_calls(text, truncated=bool(completion.usage.truncated))
        if reading is None:
            return [], None
        form = _form(text)
        if reading.problem is not None:
            return [], f"{_written(form)}, but tau2 cannot read it as calls: {reading.problem}"
        if self.enabled:
            return (
                reading.calls,
                f"{_written(form)}, read as calls with {self.option or 'text tool calls on'}",
            )
        return [], _unread(form, reading.calls, self.option)


async def _tool_calls(client: ModelClient, checks: list[Check], reading: _Reading) -> bool:
    """A request with one tool, as runs send it (no `tool_choice`), must come back as a call to it with
    JSON-object arguments, structured or (for a seat reading them) written as text; whether it did."""
    asked = [{"role": "user", "content": "Look up order A-17 with the lookup_order tool."}]
    try:
        completion = await client.complete(asked, [_LOOKUP], seed=None)
    except InfrastructureError as error:
        detail = f"the server refused a request with tools: {_reason(client, error)}"
        checks.append(Check(name="tool calls", outcome="fail", detail=detail))
        return False
    calls, how = reading.calls(completion)
    if not calls:
        detail = how or f"no tool call came back ({_shown(completion)})"
        checks.append(Check(name="tool calls", outcome="fail", detail=detail))
        return False
    call = calls[0]
    arguments = _object(call.arguments)
    if call.name != "lookup_order" or arguments is None:
        detail = f"asked for lookup_order with JSON arguments, got {call.name}({call.arguments})"
        checks.append(Check(name="tool calls", outcome="fail", detail=detail))
        return False
    shown = f"lookup_order({json.dumps(arguments, ensure_ascii=False)})"
    detail = f"{how}: {shown}" if how else f"came back as a structured call: {shown}"
    checks.append(Check(name="tool calls", outcome="pass", detail=detail))
    return True


async def _forced_tool_choice(client: ModelClient, checks: list[Check], reading: _Reading) -> None:
    """Whether `tool_choice: required` (the form OpenAI, vLLM and llama.cpp all accept; llama.cpp ignores a
    named, object-valued one) is enforced: a structured call must come back to a prompt that needs none.
    Runs send no `tool_choice` unless `--agent-arg` sets it, so an unenforced one only warns."""
    completion = await _required(
        client, checks, "forced tool choice", "Reply with the single word: ready", _LOOKUP
    )
    if completion is None:
        return
    if completion.tool_calls:
        detail = "tool_choice=required is enforced (a call came back to a prompt that needs none)"
        checks.append(Check(name="forced tool choice", outcome="pass", detail=detail))
        return
    _, how = reading.calls(completion)
    said = how or f"answered {_shown(completion)}"
    detail = (
        f"tool_choice=required is not enforced: the server accepted it, and the model {said}; runs send "
        "no tool_choice, so this matters only where a --agent-arg or --user-arg sets one"
    )
    checks.append(Check(name="forced tool choice", outcome="warn", detail=detail))


async def _parallel_tool_calls(client: ModelClient, checks: list[Check], reading: _Reading) -> None:
    """With `tool_choice: required`, whether one reply carries several calls."""
    asked = "Get the weather in Paris and in Tokyo, in one reply."
    completion = await _required(client, checks, "parallel tool calls", asked, _WEATHER)
    if completion is None:
        return
    calls, how = reading.calls(completion)
    count = len(calls)
    written = f" ({how})" if how else ""
    if count >= 2:
        checks.append(
            Check(name="parallel tool calls", outcome="pass", detail=f"{count} calls in one reply{written}")
        )
    elif count == 1:
        detail = f"one call per reply (the model or server does not make parallel calls){written}"
        checks.append(Check(name="parallel tool calls", outcome="warn", detail=detail))
    else:
        detail = f"tool_choice=required answered without a tool call: {how or _shown(completion)}"
        checks.append(Check(name="parallel tool calls", outcome="warn", detail=detail))


async def _required(
    client: ModelClient, checks: list[Check], name: str, asked: str, tool: dict[str, Any]
) -> Completion | None:
    """The reply to `asked` with `tool` under `tool_choice: required`; None, with the check `name` warned
    about, when the server refused the request or took too long."""
    try:
        messages = [{"role": "user", "content": asked}]
        forced = {"tool_choice": "required", **_probe_cap(client.spec.args)}
        return await _with_args(client, forced).complete(messages, [tool], seed=None)
    except InfrastructureError as error:
        checks.append(Check(name=name, outcome="warn", detail=_unanswered(client, error)))
        return None


def _probe_cap(args: SecretArgs) -> dict[str, int]:
    """The token cap a forced probe sends: `PROBE_MAX_TOKENS` under the argument the seat caps with
    (`max_tokens` when it sets none), or the seat's own cap when that is smaller."""
    key = next((name for name in _CAP_KEYS if name in args), "max_tokens")
    own = args.get(key)
    if isinstance(own, int) and not isinstance(own, bool) and 0 < own < PROBE_MAX_TOKENS:
        return {key: own}
    return {key: PROBE_MAX_TOKENS}


def _unanswered(client: ModelClient, error: InfrastructureError) -> str:
    """Why a request with `tool_choice: required` got no reply: the server refused it, or took too long."""
    if isinstance(_connection_failure(error), TimeoutError):
        timeout = client.spec.timeout_s
        return f"no reply to a request with tool_choice=required within the seat's timeout ({timeout:g} s)"
    return f"tool_choice=required was refused: {_reason(client, error)}"


def _form(text: str) -> str:
    """How a reply wrapped the tool calls it wrote as text."""
    if "<tool_call>" in text:
        return "tags"
    return "fence" if "```" in text else "bare"


def _written(form: str) -> str:
    """The phrase saying how calls written as text were wrapped."""
    return {
        "tags": "the call came back as text in <tool_call> tags",
        "fence": "the call came back as text in a Markdown code fence",
        "bare": "the call came back as bare JSON text",
    }[form]


def _unread(form: str, calls: list[ModelToolCall], option: str | None) -> str:
    """Why calls came back as text (the server's parser, or the model's own form), and what reads them."""
    cause = {
        "tags": (
            "the server passed the model's <tool_call> tags on unparsed: its tool-call parser is off or "
            "does not match the model (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; "
            "llama.cpp: --jinja)"
        ),
        "fence": (
            "the model wraps its calls in code fences, a form tool-call parsers do not read, so this is the "
            "model's habit, not a missing server option"
        ),
        "bare": (
            "either the server has no tool-call parser for this model (vLLM: --enable-auto-tool-choice "
            "--tool-call-parser NAME; llama.cpp: --jinja) or the model writes calls in a form its parser "
            "does not read"
        ),
    }[form]
    shown = ", ".join(f"{call.name}({call.arguments})" for call in calls)
    remedy = f"; tau2 reads it as {shown}"
    if option is not None:
        remedy += f" with {option} (give it to this command too, to check)"
    return f"{_written(form)}: {cause}{remedy}"


def _shown(completion: Completion) -> str:
    """A reply's text, shortened, for a line saying it was not what was asked."""
    shown = " ".join((completion.text or "").split())[:60]
    return repr(shown) if shown else "an empty reply"


def _object(text: str) -> dict[str, Any] | None:
    """`text` parsed as a JSON object, or None."""
    try:
        value = parse_json(text or "{}")
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
    url = endpoint(spec.api_base.for_request(), "models")
    import aiohttp  # here, not at the top: it takes ~0.1 s to import, and only this probe needs it

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
