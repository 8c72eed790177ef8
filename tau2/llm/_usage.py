"""Tokens and cost of model calls, how many replies hit the token cap, and how many came from the model
cache, summed per seat."""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, Field


def _zero(value: float) -> bool:
    return value == 0


UNPRICED: Final = "unpriced"
"""The one word every output uses for a cost that cannot be known because a model without a price was
called: never a made-up zero."""


def spent_text(priced: float, unpriced: bool) -> str:
    """What the priced calls cost, and that unpriced calls were made: `$0.0123`, `$0.0123 + unpriced`, or
    `unpriced` alone when the priced calls cost nothing (a partial sum never reads as complete)."""
    if unpriced and not priced:
        return UNPRICED
    return f"${priced:,.4f}" + (f" + {UNPRICED}" if unpriced else "")


class Usage(BaseModel):
    """Tokens and cost of one model call (or a sum of calls); cost None means the model is unpriced."""

    model_config = ConfigDict(frozen=True)

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0
    """USD; None as soon as any summed call was unpriced."""
    truncated: int = 0
    """Replies cut off at the token cap (finish reason `length`)."""
    cached_calls: int = Field(default=0, exclude_if=_zero)
    """Of `calls`, those answered from the model cache (`--cache`): nothing was sent, and the tokens and
    cost are the original answer's (left out of stored usage while 0)."""
    cached_cost: float = Field(default=0.0, exclude_if=_zero)
    """Of `cost`, what the answers from the model cache cost when they were first asked: the USD the cache
    saved (priced calls only; left out of stored usage while 0)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost=None if self.cost is None or other.cost is None else self.cost + other.cost,
            truncated=self.truncated + other.truncated,
            cached_calls=self.cached_calls + other.cached_calls,
            cached_cost=self.cached_cost + other.cached_cost,
        )

    @property
    def spent(self) -> float | None:
        """What the calls really cost: `cost` less what the model cache saved (None when unpriced)."""
        return None if self.cost is None else max(0.0, self.cost - self.cached_cost)

    def from_cache(self) -> Usage:
        """This usage as answered from the model cache: the same tokens and cost, every call cached."""
        return self.model_copy(update={"cached_calls": self.calls, "cached_cost": self.cost or 0.0})
