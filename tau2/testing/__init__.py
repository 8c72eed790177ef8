"""Test utilities shipped with tau2: a scripted OpenAI-compatible server for offline LLM and embedding
tests, every actor kind slowed (`--agent tau2.testing:slowed_oracle`, waiting `TAU2_TEST_TURN_DELAY_S`
seconds before each turn) so tests can catch a fast offline run mid-flight, and the collateral oracle
(`--agent tau2.testing:collateral_oracle`: the oracle plus one write to a record its task never mentions)."""

from typing import Any

from tau2.testing._openai_server import (
    ChatRequest,
    ErrorDetail,
    Reply,
    Responder,
    ScriptedOpenAIServer,
    ScriptedToolCall,
    ScriptedUsage,
    embedding_of,
    estimate_tokens,
)
from tau2.testing._slowed import DELAY_VARIABLE, slowed_name

__all__ = [
    "DELAY_VARIABLE",
    "ChatRequest",
    "ErrorDetail",
    "Reply",
    "Responder",
    "ScriptedOpenAIServer",
    "ScriptedToolCall",
    "ScriptedUsage",
    "embedding_of",
    "estimate_tokens",
    "slowed_name",
]


def __getattr__(name: str) -> Any:
    """`slowed_<kind>`: the actor kind `<kind>` slowed (see `tau2.testing._slowed`), and
    `collateral_oracle` (see `tau2.testing._collateral`), built on first use."""
    if name == "collateral_oracle":
        from tau2.testing._collateral import collateral_kind

        return collateral_kind()
    if name.startswith("slowed_"):
        from tau2.testing._slowed import slowed_kind

        return slowed_kind(name.removeprefix("slowed_"))
    raise AttributeError(f"module 'tau2.testing' has no attribute {name!r}")
