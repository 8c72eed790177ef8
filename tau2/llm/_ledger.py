"""Tokens and cost of one model call; a model litellm cannot price is "unpriced" (cost None), not free."""

from __future__ import annotations

import math
from typing import Any

from tau2.llm._usage import Usage


def price(response: Any, model: str) -> float | None:
    """USD cost of a litellm response by litellm's local cost map, or None when the model is unpriced."""
    import litellm

    try:
        cost = litellm.completion_cost(completion_response=response, model=model)
    except Exception:  # litellm raises when the model is missing from its cost map
        return None
    if not isinstance(cost, int | float) or not math.isfinite(cost):
        return None
    return float(cost)


def usage_of(response: Any, model: str) -> Usage:
    """The ledger line of one successful call: its tokens as the provider reported them, and its cost."""
    reported = getattr(response, "usage", None)
    return Usage(
        calls=1,
        prompt_tokens=max(0, int(getattr(reported, "prompt_tokens", 0) or 0)),
        completion_tokens=max(0, int(getattr(reported, "completion_tokens", 0) or 0)),
        cost=price(response, model),
    )
