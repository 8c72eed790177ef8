"""Prices per token from litellm's model cost map, looked up once per model: no litellm call per request.

A model missing from the map, or listed without both token prices, is unpriced (cost None), not free.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from tau2.llm.transports import provider_of


@cache
def token_prices(model: str) -> tuple[float, float] | None:
    """USD per prompt token and per completion token of `model`, or None when it is unpriced.

    The map is keyed by the full name (`openai/gpt-4o-mini`) or by the bare name of a provider's entry
    (`gpt-4o-mini`, listed for `openai`); a bare name listed for another provider does not count.
    """
    import litellm

    cost_map: dict[str, dict[str, Any]] = litellm.model_cost
    entry = cost_map.get(model)
    provider = provider_of(model)
    if entry is None and provider:
        bare = cost_map.get(model[len(provider) + 1 :])
        if bare is not None and bare.get("litellm_provider") == provider:
            entry = bare
    if entry is None:
        return None
    prompt, completion = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not all(isinstance(value, int | float) and math.isfinite(value) for value in (prompt, completion)):
        return None
    return float(prompt), float(completion)  # type: ignore[arg-type]


def cost_of(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD cost of one call's tokens, or None when the model is unpriced."""
    prices = token_prices(model)
    if prices is None:
        return None
    return prompt_tokens * prices[0] + completion_tokens * prices[1]
