"""LLM access through litellm: completions with our own retries, rate limits and a token/cost ledger.

litellm itself is imported lazily, on the first model call, so importing this package stays cheap.
"""

import os

# Never fetch litellm's remote cost map: prices come from the copy shipped with the installed litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tau2.llm.client import Completion, ModelToolCall, complete
from tau2.llm.limits import ProviderLimit, RateLimits, default_limits
from tau2.llm.retries import RetryPolicy

__all__ = [
    "Completion",
    "ModelToolCall",
    "ProviderLimit",
    "RateLimits",
    "RetryPolicy",
    "complete",
    "default_limits",
]
