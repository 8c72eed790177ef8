"""LLM access: completions through litellm or the native OpenAI-compatible transport, with our own
retries, rate limits, a token/cost ledger and a model cache keyed by each request's content.

litellm itself is imported lazily, on the first model call, so importing this package stays cheap.
"""

import os

# Never fetch litellm's remote cost map: prices come from the copy shipped with the installed litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tau2._urls import api_base_problem
from tau2.llm._cache import CACHE_FORMAT, ModelCache
from tau2.llm._client import Completion, ModelClient, ModelToolCall, check_spec, complete
from tau2.llm._errors import AuthenticationError, ContextOverflowError, InfrastructureError
from tau2.llm._hooks import CallSettings, UsageCallback, call_settings, current_settings
from tau2.llm._limits import ProviderLimit, RateLimits, default_limits
from tau2.llm._preflight import missing_credentials, withheld_credentials
from tau2.llm._pricing import token_prices
from tau2.llm._probe import Check, probe_model
from tau2.llm._retries import RetryPolicy
from tau2.llm._secrets import (
    REDACTED,
    SecretArgs,
    SecretURL,
    is_secret_name,
    is_secret_value,
    redacted_settings,
)
from tau2.llm._spec import ModelSpec, TransportChoice
from tau2.llm._text import safe_text
from tau2.llm._text_calls import TextCalls, read_text_calls
from tau2.llm._transports import NATIVE_PROVIDERS, TransportName, resolve_transport
from tau2.llm._usage import UNPRICED, Usage, spent_text

__all__ = [
    "CACHE_FORMAT",
    "NATIVE_PROVIDERS",
    "REDACTED",
    "UNPRICED",
    "AuthenticationError",
    "CallSettings",
    "Check",
    "Completion",
    "ContextOverflowError",
    "InfrastructureError",
    "ModelCache",
    "ModelClient",
    "ModelSpec",
    "ModelToolCall",
    "ProviderLimit",
    "RateLimits",
    "RetryPolicy",
    "SecretArgs",
    "SecretURL",
    "TextCalls",
    "TransportChoice",
    "TransportName",
    "Usage",
    "UsageCallback",
    "api_base_problem",
    "call_settings",
    "check_spec",
    "complete",
    "current_settings",
    "default_limits",
    "is_secret_name",
    "is_secret_value",
    "missing_credentials",
    "probe_model",
    "read_text_calls",
    "redacted_settings",
    "resolve_transport",
    "safe_text",
    "spent_text",
    "token_prices",
    "withheld_credentials",
]
