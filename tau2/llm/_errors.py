"""Provider failures an LLM seat raises; the orchestrator turns them into typed terminations."""

from __future__ import annotations


class InfrastructureError(Exception):
    """The model provider failed after retries; the episode ends without judging the actor."""


class ContextOverflowError(Exception):
    """The conversation no longer fits the model's context window; not retried."""
