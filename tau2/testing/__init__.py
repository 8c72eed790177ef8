"""Test utilities shipped with tau2: a scripted OpenAI-compatible server for offline LLM and embedding
tests."""

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

__all__ = [
    "ChatRequest",
    "ErrorDetail",
    "Reply",
    "Responder",
    "ScriptedOpenAIServer",
    "ScriptedToolCall",
    "ScriptedUsage",
    "embedding_of",
    "estimate_tokens",
]
