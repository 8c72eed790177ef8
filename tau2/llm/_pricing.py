"""Prices per token from litellm's model cost map, looked up once per model: no litellm call per request.

When litellm is already imported its live map is used (it may hold prices registered at run time);
otherwise the map file bundled with the installed litellm is read, which is the map litellm itself loads
under `LITELLM_LOCAL_MODEL_COST_MAP=True` (tau2's default), so native-only runs never import litellm.
A model missing from the map, or listed without both token prices, is unpriced (cost None), not free.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from tau2.llm._transports import provider_of

COST_MAP_FILE = "model_prices_and_context_window_backup.json"
"""The cost map shipped inside the litellm package."""


@cache
def _bundled_cost_map() -> dict[str, dict[str, Any]]:
    """The installed litellm's bundled cost map, read without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    locations = spec.submodule_search_locations if spec is not None else None
    if not locations:
        return {}
    try:
        loaded = orjson.loads((Path(next(iter(locations))) / COST_MAP_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def cost_map() -> dict[str, dict[str, Any]]:
    """litellm's model cost map: the imported module's, else the bundled file's."""
    litellm = sys.modules.get("litellm")
    live = getattr(litellm, "model_cost", None)
    return live if isinstance(live, dict) else _bundled_cost_map()


@cache
def token_prices(model: str) -> tuple[float, float] | None:
    """USD per prompt token and per completion token of `model`, or None when it is unpriced.

    The map is keyed by the full name (`openai/gpt-4o-mini`) or by the bare name of a provider's entry
    (`gpt-4o-mini`, listed for `openai`); a bare name listed for another provider does not count.
    """
    prices = cost_map()
    entry = prices.get(model)
    provider = provider_of(model)
    if entry is None and provider:
        bare = prices.get(model[len(provider) + 1 :])
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
