"""Settings a caller scopes around many model calls without threading them through every actor: the
retry policy, a callback told about every call's usage (e.g. the runner's live token and cost count), and
the model cache answering repeated requests.

They live in a context variable, so `asyncio` tasks started inside `call_settings(...)` inherit them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from tau2.llm._cache import ModelCache
from tau2.llm._retries import RetryPolicy
from tau2.llm._usage import Usage

UsageCallback = Callable[[str, Usage], None]
"""Called after each successful model call with the seat's spec label and the call's usage."""


@dataclass(frozen=True)
class CallSettings:
    """Defaults of every model call in scope; an explicit argument to `complete` or an actor wins."""

    retry: RetryPolicy = field(default_factory=RetryPolicy)
    on_usage: UsageCallback | None = None
    cache: ModelCache | None = None
    """Where answers are looked up before a request is sent, and stored after (None: no cache)."""


_DEFAULT = CallSettings()
_current: ContextVar[CallSettings | None] = ContextVar("tau2_llm_call_settings", default=None)


def current_settings() -> CallSettings:
    """The settings in scope."""
    return _current.get() or _DEFAULT


@contextmanager
def call_settings(
    *,
    retry: RetryPolicy | None = None,
    on_usage: UsageCallback | None = None,
    cache: ModelCache | None = None,
) -> Iterator[None]:
    """Scope a retry policy, a usage callback and/or a model cache over the model calls made inside the
    block (each one not given stays as it was)."""
    base = current_settings()
    token = _current.set(
        CallSettings(
            retry=retry or base.retry,
            on_usage=on_usage if on_usage is not None else base.on_usage,
            cache=cache if cache is not None else base.cache,
        )
    )
    try:
        yield
    finally:
        _current.reset(token)
