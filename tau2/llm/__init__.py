"""LLM access: the model spec, completions with our own retries and rate limits, provider failures, and
the token and cost ledger.

litellm itself is imported lazily, on the first model call, so importing this package stays cheap.
"""

import os

# Never fetch litellm's remote cost map: prices come from the copy shipped with the installed litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tau2.llm._client import Completion, ModelToolCall, check_spec, complete
from tau2.llm._errors import ContextOverflowError, InfrastructureError
from tau2.llm._limits import ProviderLimit, RateLimits, default_limits
from tau2.llm._retries import RetryPolicy
from tau2.llm._spec import ModelSpec
from tau2.llm._usage import Usage

__all__ = [
    "Completion",
    "ContextOverflowError",
    "InfrastructureError",
    "ModelSpec",
    "ModelToolCall",
    "ProviderLimit",
    "RateLimits",
    "RetryPolicy",
    "Usage",
    "check_spec",
    "complete",
    "default_limits",
]
