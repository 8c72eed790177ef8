"""Which transport carries a seat's model calls, and the interface both transports implement.

litellm reaches every provider; the native transport speaks the OpenAI chat-completions protocol itself
over aiohttp, at a small fraction of litellm's CPU per call, and is used for OpenAI-compatible servers.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tau2.llm._spec import ModelSpec
from tau2.llm._text import safe_text
from tau2.llm._usage import Usage

TransportName = Literal["native", "litellm"]

NATIVE_PROVIDERS = frozenset({"openai", "hosted_vllm", "custom_openai", "lm_studio", "llamafile"})
"""Model-name prefixes of OpenAI-compatible chat-completions APIs: with an API base, `auto` picks the
native transport for them."""

OPENAI_API_BASE = "https://api.openai.com/v1"
"""Where the native transport sends `openai/…` models that name no API base."""

TOKEN_CAP = "length"
"""The finish reason of a reply cut off at the token cap (`max_tokens`, or the server's own limit)."""


class ModelToolCall(BaseModel):
    """A tool call as the model wrote it: arguments are the raw text, parsed later by the actor."""

    model_config = ConfigDict(frozen=True)

    id: str | None
    name: str
    arguments: str

    @field_validator("id", "name", "arguments")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        """Names and arguments come from the model: cleaned where they enter tau2."""
        return _safe_or_none(value)


class Completion(BaseModel):
    """The model's reply to one request, and what the request cost."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    tool_calls: list[ModelToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage

    @field_validator("text", "finish_reason")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        """The reply's text comes from the model: cleaned where it enters tau2."""
        return _safe_or_none(value)


def _safe_or_none(value: str | None) -> str | None:
    """Model text without lone surrogates, so no record built from it fails to serialise."""
    return None if value is None else safe_text(value)


def replied(
    text: str | None, tool_calls: list[ModelToolCall], finish_reason: str | None, usage: Usage
) -> Completion:
    """A reply as a transport read it; one cut off at the token cap counts in its usage's `truncated`."""
    if finish_reason == TOKEN_CAP:
        usage = usage.model_copy(update={"truncated": 1})
    return Completion(text=text, tool_calls=tool_calls, finish_reason=finish_reason, usage=usage)


class EmptyChoicesError(Exception):
    """A successful HTTP reply without any choice: a provider fault, retried like a server error."""

    status_code = 500


class Transport(Protocol):
    """Sends one chat-completions request for a fixed seat spec; raises the provider's failure as is."""

    name: TransportName
    limit_keys: list[str]
    """Rate-limit keys of the seat's requests, most specific first (see `tau2.llm._limits`)."""

    async def send(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, seed: int | None
    ) -> Completion:
        """One attempt: the parsed reply, or the provider's (or the network's) exception."""
        ...


def provider_of(model: str) -> str:
    """The provider prefix of a model name (`hosted_vllm` of `hosted_vllm/Qwen/Qwen3-8B`), or ``""``."""
    prefix, slash, _ = model.partition("/")
    return prefix if slash else ""


def resolve_transport(spec: ModelSpec) -> TransportName:
    """The transport a seat uses: its explicit choice, else native for an OpenAI-style model with an API
    base, else litellm."""
    if spec.transport != "auto":
        return spec.transport
    model = spec.name or ""
    return "native" if spec.api_base and provider_of(model) in NATIVE_PROVIDERS else "litellm"


def host_keys(api_base: str | None) -> list[str]:
    """Rate-limit keys of an API base: `host:port`, then the bare host name."""
    if not api_base:
        return []
    parts = urlsplit(api_base)
    return [key for key in (parts.netloc, parts.hostname) if key]


def endpoint(api_base: str, path: str) -> str:
    """The URL of endpoint `path` (`chat/completions`) under `api_base`, the base's query kept after it
    (a server that takes its key as `?api-key=…` gets it on every request)."""
    parts = urlsplit(api_base)
    return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}/{path}", fragment=""))
