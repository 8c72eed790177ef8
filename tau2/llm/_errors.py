"""Provider failures an LLM seat raises; the orchestrator turns them into typed terminations."""

from __future__ import annotations

from tau2.errors import UserInputError


class InfrastructureError(Exception):
    """The model provider failed after retries; the episode ends without judging the actor."""


class ContextOverflowError(Exception):
    """The conversation no longer fits the model's context window; not retried."""


class AuthenticationError(InfrastructureError, UserInputError):
    """The provider refused the credentials (HTTP 401 or 403, or litellm found no key): no simulation
    can succeed, so a run stops at once instead of recording it per simulation; the CLI prints it on
    one line and exits 2."""
