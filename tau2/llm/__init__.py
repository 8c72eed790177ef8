"""LLM access: completions through litellm or the native OpenAI-compatible transport, with our own
retries, rate limits and a token/cost ledger.

litellm itself is imported lazily, on the first model call, so importing this package stays cheap.
"""

import os

# Never fetch litellm's remote cost map: prices come from the copy shipped with the installed litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tau2.llm.client import Completion, ModelClient, ModelToolCall, complete
from tau2.llm.hooks import CallSettings, UsageCallback, call_settings, current_settings
from tau2.llm.limits import ProviderLimit, RateLimits, default_limits
from tau2.llm.retries import RetryPolicy
from tau2.llm.transports import NATIVE_PROVIDERS, TransportName, resolve_transport

__all__ = [
    "NATIVE_PROVIDERS",
    "CallSettings",
    "Completion",
    "ModelClient",
    "ModelToolCall",
    "ProviderLimit",
    "RateLimits",
    "RetryPolicy",
    "TransportName",
    "UsageCallback",
    "call_settings",
    "complete",
    "current_settings",
    "default_limits",
    "resolve_transport",
]
