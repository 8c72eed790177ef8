"""Which provider failures are worth another attempt, and how long to wait before it."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tau2.llm._secrets import scrub
from tau2.llm._text import safe_text

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""HTTP statuses retried: timeouts, rate limits, server errors and overload."""

AUTH_STATUS = frozenset({401, 403})
"""HTTP statuses of refused credentials or permissions."""

_MISSING_KEY_TEXT = re.compile(r"missing credentials|api_key client option must be set", re.IGNORECASE)
"""How the OpenAI SDK (through litellm, which reports it as a server error) says no key was given."""

_OVERFLOW_TEXT = re.compile(
    r"context_length_exceeded|context length|context window|context size|maximum context|prompt is too long",
    re.IGNORECASE,
)


class Failure(StrEnum):
    """How a failed model call is handled."""

    TRANSIENT = "transient"
    """Retried with backoff."""
    CONTEXT_OVERFLOW = "context_overflow"
    """The conversation does not fit the model; never retried."""
    AUTHENTICATION = "authentication"
    """The credentials were refused or missing; never retried, and no other call can succeed either."""
    PERMANENT = "permanent"
    """Retrying cannot help (bad request, unknown model, unsupported parameter, …)."""


def classify(exc: BaseException) -> Failure:
    """Sort an exception raised by a model call into transient, authentication, context overflow or
    permanent."""
    if any(cls.__name__ == "ContextWindowExceededError" for cls in type(exc).__mro__):
        return Failure.CONTEXT_OVERFLOW
    if isinstance(exc, TimeoutError | ConnectionError):
        return Failure.TRANSIENT
    status = getattr(exc, "status_code", None)
    if status in AUTH_STATUS or _MISSING_KEY_TEXT.search(str(exc)):
        return Failure.AUTHENTICATION
    if status in TRANSIENT_STATUS:
        return Failure.TRANSIENT
    if _OVERFLOW_TEXT.search(str(exc)):
        return Failure.CONTEXT_OVERFLOW
    return Failure.PERMANENT


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the provider asked us to wait (`Retry-After`, in seconds or as an HTTP date), if any."""
    response = getattr(exc, "response", None)
    sources = (getattr(exc, "litellm_response_headers", None), getattr(response, "headers", None))
    for headers in (*sources, getattr(exc, "headers", None)):
        value = _header(headers, "retry-after")
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
        except (TypeError, ValueError):
            return None
    return None


def _header(headers: Any, name: str) -> str | None:
    """A header value from an httpx `Headers` (case-insensitive) or a plain mapping."""
    if not isinstance(headers, Mapping) and not hasattr(headers, "get"):
        return None
    value = headers.get(name) or headers.get(name.title())
    return str(value) if value else None


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """The exception as one short line, for termination details and logs, with each of `secrets` a
    provider may echo (a key in an "incorrect API key" message) replaced by the marker before any cut."""
    text = scrub(safe_text(" ".join(str(exc).split())), secrets) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


class RetryPolicy(BaseModel):
    """Exponential backoff with jitter; a provider's `Retry-After` is honoured up to a cap.

    How long a call keeps retrying comes from its seat (`ModelSpec.max_retries` and
    `ModelSpec.retry_budget_s`: it gives up at whichever comes first). A policy with `budget_s`
    overrides both for every call it covers: transient failures are retried until `budget_s` seconds
    have passed since the first attempt. The last wait is always cut to what remains of a budget.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_delay_s: float = Field(default=1.0, ge=0)
    max_delay_s: float = Field(default=30.0, ge=0)
    max_retry_after_s: float = Field(default=120.0, ge=0)
    budget_s: float | None = Field(default=None, gt=0)

    def delay_s(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (0-based)."""
        backoff = min(self.max_delay_s, self.base_delay_s * 2.0 ** min(attempt, 64))
        jittered = backoff * random.uniform(0.5, 1.0)
        if retry_after is None:
            return jittered
        return max(jittered, min(retry_after, self.max_retry_after_s))

    def next_wait_s(
        self,
        attempt: int,
        elapsed_s: float,
        max_retries: int | None,
        retry_after: float | None = None,
        budget_s: float | None = None,
    ) -> float | None:
        """Seconds to wait before retrying after failed attempt `attempt`, `elapsed_s` after the first
        attempt started, for a seat allowing `max_retries` retries within `budget_s` seconds (None: no
        such limit); None when the call should give up."""
        if self.budget_s is not None:
            max_retries, budget_s = None, self.budget_s
        if max_retries is not None and attempt >= max_retries:
            return None
        delay = self.delay_s(attempt, retry_after)
        if budget_s is None:
            return delay
        remaining = budget_s - elapsed_s
        return min(delay, remaining) if remaining > 0 else None
