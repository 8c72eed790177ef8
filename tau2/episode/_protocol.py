"""Fixed parts of the turn protocol that actors and prompts must agree on with the orchestrator."""

from __future__ import annotations

from typing import Any

from tau2.world import ToolResult

GREETING = "Hi! How can I help you today?"
"""The fixed agent message that opens every interactive conversation."""

DONE_TOOL = "done"
"""The orchestrator-level tool a solo agent calls to end its episode."""

DONE_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": DONE_TOOL,
        "description": "Call this when the ticket is fully handled; it ends the episode.",
        "parameters": {"type": "object", "properties": {}},
    },
}
DONE_RESULT = ToolResult.success("Episode ended.")
