"""Which model a seat (or a judge) talks to, where, and with which provider arguments."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tau2._urls import api_base_problem
from tau2.llm._secrets import SecretArgs

DEFAULT_RETRY_BUDGET_S = 300.0
"""Seconds a model call keeps retrying transient failures by default: enough to ride out a server
restart or a short provider outage."""

TransportChoice = Literal["auto", "native", "litellm"]
"""How a model's calls travel: litellm, tau2's own client for OpenAI-compatible servers, or `auto`
(native for OpenAI-style models with an API base; see `tau2.llm.resolve_transport`)."""


class ModelSpec(BaseModel):
    """A model as configured by the user: nothing here is ever filled in silently."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)  # no key echoed

    name: str = Field(min_length=1)
    """The provider's model name as litellm spells it, e.g. `openai/gpt-4o-mini`."""
    api_base: str | None = None
    args: SecretArgs = Field(default_factory=SecretArgs)
    """Passed through to the provider (temperature, top_p, max_tokens, api_key, …); secrets among them
    read as a marker and are never written (see `tau2.llm.SecretArgs`)."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Seconds one request may take before it counts as failed."""
    max_retries: int | None = Field(default=None, ge=0)
    """Retries after a transient failure; None = as many as `retry_budget_s` allows."""
    retry_budget_s: float | None = Field(default=DEFAULT_RETRY_BUDGET_S, gt=0)
    """Seconds, from a call's first attempt, during which transient failures are retried; None = no limit
    in time (`max_retries` then bounds the call)."""
    transport: TransportChoice = "auto"

    @field_validator("api_base")
    @classmethod
    def _an_http_url(cls, api_base: str | None) -> str | None:
        """See `api_base_problem`."""
        problem = None if api_base is None else api_base_problem(api_base)
        if problem is not None:
            raise ValueError(problem)
        return api_base

    @model_validator(mode="after")
    def _bounded(self) -> ModelSpec:
        """A call must give up some day: by count, by time, or both."""
        if self.max_retries is None and self.retry_budget_s is None:
            raise ValueError("give max_retries or retry_budget_s (or both): retries must end")
        return self
