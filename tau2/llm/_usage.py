"""Tokens and cost of model calls, and how many replies hit the token cap, summed per seat."""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict

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

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost=None if self.cost is None or other.cost is None else self.cost + other.cost,
            truncated=self.truncated + other.truncated,
        )
