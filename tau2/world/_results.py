"""The result of one tool or env-function call, as both the world and the actors see it."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.errors import ErrorCode


class ToolFailure(BaseModel):
    """Why an operation failed; the operation changed nothing."""

    model_config = ConfigDict(frozen=True)

    code: ErrorCode
    message: str


class ToolResult(BaseModel):
    """Success with JSON content, or a structured failure. Never an exception."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    content: Any = None
    """JSON-compatible content (the world converts a function's return value with `to_jsonable_python`);
    typed `Any` rather than `JsonValue` because re-validating it would dominate a tool call's cost."""
    error: ToolFailure | None = None

    @classmethod
    def success(cls, content: Any) -> ToolResult:
        """A successful result carrying JSON-compatible content."""
        return cls(ok=True, content=content)

    @classmethod
    def failure(cls, code: ErrorCode, message: str) -> ToolResult:
        """A failed result with a code and a human-readable reason."""
        return cls(ok=False, error=ToolFailure(code=code, message=message))

    def render(self) -> str:
        """The text an actor reads for this result."""
        if self.error is not None:
            return f"Error ({self.error.code.value}): {self.error.message}"
        if isinstance(self.content, str):
            return self.content
        return json.dumps(self.content, ensure_ascii=False)
