"""Which model a seat (or a judge) talks to, where, and with which provider arguments."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

TransportChoice = Literal["auto", "native", "litellm"]
"""How a model's calls travel: litellm, tau2's own client for OpenAI-compatible servers, or `auto`
(native for OpenAI-style models with an API base; see `tau2.llm.resolve_transport`)."""


class ModelSpec(BaseModel):
    """A model as configured by the user: nothing here is ever filled in silently."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    """The provider's model name as litellm spells it, e.g. `openai/gpt-4o-mini`."""
    api_base: str | None = None
    args: dict[str, JsonValue] = Field(default_factory=dict)
    """Passed through to the provider (temperature, top_p, max_tokens, api_key, …)."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Seconds one request may take before it counts as failed."""
    max_retries: int = Field(default=4, ge=0)
    transport: TransportChoice = "auto"
