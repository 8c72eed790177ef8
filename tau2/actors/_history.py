"""The chat transcript one seat's model reads, built only from that seat's observations and replies."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tau2.episode import ActorTurn, Entry, EntryKind, ToolCall
from tau2.world import Side

FEEDBACK_PREFIX = "[Simulation notice, not part of the conversation] Your last reply was not accepted:"
MISSING_RESULT = "No result was returned for this call."


class ChatHistory:
    """OpenAI-format messages of one seat: its own replies are `assistant`, the other seat's messages
    are `user`, its tool results are `tool` messages, and rejected replies come back as notices."""

    def __init__(self, seat: Side, system_prompt: str, opening: str | None = None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
        if opening:
            self.messages.append({"role": "user", "content": opening})
        self._unechoed_texts = 0
        self._emitted_calls: set[str] = set()
        self._open_calls: list[str] = []
        self._pending_error: str | None = None

    def observe(self, entries: Iterable[Entry]) -> None:
        """Add what the seat saw since its last turn; entries it may not see are ignored."""
        for entry in entries:
            if not entry.visible_to(self.seat):
                continue
            if entry.seat is not self.seat:
                self._append({"role": "user", "content": entry.text or ""})
            elif entry.kind is EntryKind.MESSAGE:
                self._observe_own_message(entry.text or "")
            elif entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
                if entry.tool_call.call_id not in self._emitted_calls:
                    self._add_calls([entry.tool_call])
            elif entry.kind is EntryKind.TOOL_RESULT:
                self._add_result(entry)
            elif entry.kind is EntryKind.ACTOR_ERROR:
                self._add_feedback(entry.text or self._pending_error or "")
        if self._pending_error is not None:
            self._add_feedback(self._pending_error)

    def record(self, turn: ActorTurn) -> None:
        """Remember the seat's own accepted reply, or the error to show it before its next request."""
        if turn.error is not None:
            self._pending_error = turn.error
        elif turn.tool_calls:
            self._add_calls(turn.tool_calls)
        elif turn.text is not None:
            self._append({"role": "assistant", "content": turn.text})
            self._unechoed_texts += 1

    def _observe_own_message(self, text: str) -> None:
        """The seat's own message comes back once as an entry; one it did not write (a fixed greeting)
        joins the transcript as its own words."""
        if self._unechoed_texts:
            self._unechoed_texts -= 1
        else:
            self._append({"role": "assistant", "content": text})

    def _add_calls(self, calls: list[ToolCall]) -> None:
        """An assistant message of tool calls, without a `content` key (what litellm sends for it too)."""
        self._append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call.call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call in calls
                ],
            }
        )
        self._emitted_calls.update(call.call_id for call in calls)
        self._open_calls.extend(call.call_id for call in calls)

    def _add_result(self, entry: Entry) -> None:
        """A tool result answers its own call if that call is open, else the oldest open call."""
        call_id = entry.tool_call.call_id if entry.tool_call is not None else None
        if call_id not in self._open_calls and self._open_calls:
            call_id = self._open_calls[0]
        if call_id in self._open_calls:
            self._open_calls.remove(call_id)
        content = entry.result.render() if entry.result is not None else entry.text or ""
        self.messages.append({"role": "tool", "tool_call_id": call_id or "", "content": content})

    def _add_feedback(self, error: str) -> None:
        self._pending_error = None
        self._append({"role": "user", "content": f"{FEEDBACK_PREFIX} {error}".strip()})

    def _append(self, message: dict[str, Any]) -> None:
        """Append a non-tool message, first answering any call left without a result so the
        transcript stays valid for providers that require every call to be answered."""
        for call_id in self._open_calls:
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": MISSING_RESULT})
        self._open_calls.clear()
        self.messages.append(message)
