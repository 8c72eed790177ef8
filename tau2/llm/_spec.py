"""Which model a seat (or a judge) talks to, where, and with which provider arguments."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tau2._jsonfile import field_path, first_unpaired_surrogate
from tau2._urls import api_base_problem
from tau2.llm._secrets import SecretArgs, SecretURL

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
    """The provider's model name as litellm spells it, e.g. `openai/gpt-4o-mini` or `hosted_vllm/qwen`."""
    api_base: SecretURL | None = None
    """The API base of the model's server, e.g. `http://127.0.0.1:8000/v1`; a key in its query
    (`?api-key=…`) is written as [redacted] and sent only with the requests (no `user:password@`)."""
    args: SecretArgs = Field(default_factory=SecretArgs)
    """Passed through to the provider (temperature, top_p, max_tokens, api_key, …); secrets among them,
    named like a credential (keys, tokens, passwords, auth, session, signature, Authorization or X-Auth
    headers) or shaped like one (`Bearer …`, `sk-…`), are written as [redacted], never as their value."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Seconds one request may take before it counts as failed."""
    max_retries: int | None = Field(default=None, ge=0)
    """Retries after a transient failure; None = as many as `retry_budget_s` allows."""
    retry_budget_s: float | None = Field(default=DEFAULT_RETRY_BUDGET_S, gt=0)
    """Seconds, from a call's first attempt, during which transient failures (server errors, rate limits,
    refused connections) are retried with backoff; None (`inf` in a TOML file) = no limit in time
    (`max_retries` then bounds the call)."""
    transport: TransportChoice = "auto"
    """How the calls travel: native (tau2's own client for OpenAI-compatible servers), litellm (any
    provider), or auto (native for openai/, hosted_vllm/, … models with an API base)."""

    @model_validator(mode="before")
    @classmethod
    def _a_name_alone(cls, data: object) -> object:
        """A model given as a string is its name, with every other setting at its default."""
        return {"name": data} if isinstance(data, str) else data

    @field_validator("args")
    @classmethod
    def _text_only(cls, value: SecretArgs) -> SecretArgs:
        """A lone UTF-16 surrogate is not text: no manifest could hold it, nor could a judge's settings be
        hashed (the command line and configuration files refuse one before it gets here, and the model's
        name is refused by its own validation)."""
        where = first_unpaired_surrogate(value)
        if where is not None:
            inside = field_path(where)
            raise ValueError(
                f"{f'{inside}: ' if inside else ''}contains an unpaired UTF-16 surrogate (not text)"
            )
        return value

    @field_validator("retry_budget_s", mode="before")
    @classmethod
    def _unlimited(cls, budget: object) -> object:
        """An infinite budget (how a TOML file writes "no limit in time") is None."""
        return None if isinstance(budget, float) and math.isinf(budget) and budget > 0 else budget

    @field_validator("api_base")
    @classmethod
    def _an_http_url(cls, api_base: SecretURL | None) -> SecretURL | None:
        """See `api_base_problem`."""
        problem = None if api_base is None else api_base_problem(api_base.for_request())
        if problem is not None:
            raise ValueError(problem)
        return api_base

    @model_validator(mode="after")
    def _bounded(self) -> ModelSpec:
        """A call must give up some day: by count, by time, or both."""
        if self.max_retries is None and self.retry_budget_s is None:
            raise ValueError("give max_retries or retry_budget_s (or both): retries must end")
        return self
