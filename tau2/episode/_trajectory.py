"""What happened in an episode: every message, tool call and result, with seat, timing and usage."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tau2.llm import ModelToolCall, Usage
from tau2.world import Side, ToolResult


class ToolCall(BaseModel):
    """A tool call as an actor issued it; `side` is the toolset it resolved to (None if unresolved)."""

    model_config = ConfigDict(frozen=True)

    call_id: str
    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    side: Side | None = None


class RejectedReply(BaseModel):
    """A seat's reply the protocol did not accept, kept as the seat wrote it for diagnosis."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    tool_calls: list[ModelToolCall] = Field(default_factory=list)
    """The calls as written: raw argument text, names possibly unknown to the seat."""
    stop: bool = False
    """The reply asked to end the episode."""
    format_failure: str | None = None
    """Set when the reply's text looked like tool calls that were not taken as calls: what was wrong."""

    @property
    def format_note(self) -> str | None:
        """The format failure as transcripts show it, or None."""
        return f"(tool calls written as text: {self.format_failure})" if self.format_failure else None

    def summary(self) -> str:
        """The reply as the seat wrote it, for transcripts: why text that looked like tool calls was not
        run, if it did, then its text, then each raw call on a line."""
        parts = [part for part in (self.format_note, self.text) if part]
        parts += [f"→ {call.name}({call.arguments})" for call in self.tool_calls]
        if self.stop and not self.tool_calls:
            parts.append("(asked to end the conversation)")
        return "\n".join(parts) or "(empty reply)"


class EntryKind(StrEnum):
    """Kinds of trajectory entries. Only `message` entries cross between seats."""

    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    REJECTED_REPLY = "rejected_reply"
    """What a seat said in a turn that was not accepted; the `actor_error` after it holds the correction."""
    ACTOR_ERROR = "actor_error"


class Entry(BaseModel):
    """One step of the trajectory, owned by one seat."""

    model_config = ConfigDict(frozen=True)

    index: int
    seat: Side
    kind: EntryKind
    text: str | None = None
    tool_call: ToolCall | None = None
    """The call made (`tool_call` entries) or answered (`tool_result` entries)."""
    result: ToolResult | None = None
    rejected: RejectedReply | None = None
    """The reply a `rejected_reply` entry keeps."""
    usage: Usage | None = None
    """Set on the entries an actor turn produced that cost a model call (on the first of them)."""
    elapsed_s: float = 0.0
    """Seconds since the episode started."""

    def visible_to(self, seat: Side) -> bool:
        """Partial observability: messages reach both seats, everything else only its own seat."""
        return self.kind is EntryKind.MESSAGE or self.seat is seat


class TerminationReason(StrEnum):
    """Why an episode ended."""

    USER_STOP = "user_stop"
    AGENT_STOP = "agent_stop"
    TRANSFER = "transfer"
    MAX_STEPS = "max_steps"
    TOO_MANY_ERRORS = "too_many_errors"
    ACTOR_ERROR = "actor_error"
    CONTEXT_OVERFLOW = "context_overflow"
    INFRASTRUCTURE_ERROR = "infrastructure_error"

    @property
    def is_infrastructure(self) -> bool:
        """Provider failures are excluded from metrics and re-run on resume."""
        return self is TerminationReason.INFRASTRUCTURE_ERROR


class Trajectory(BaseModel):
    """The full record of one episode, both seats' views included."""

    entries: list[Entry] = Field(default_factory=list)
    termination: TerminationReason | None = None
    termination_detail: str | None = None
    duration_s: float = 0.0
    steps: int = 0
    """Actor turns taken (the fixed greeting is not one)."""
    usage: dict[Side, Usage] = Field(default_factory=dict)
    """Model usage summed per seat."""

    @property
    def total_usage(self) -> Usage:
        """Model usage of both seats together; its `cost` is None when a model was unpriced."""
        return sum(self.usage.values(), Usage())

    def view(self, seat: Side) -> list[Entry]:
        """The entries `seat` observed."""
        return [entry for entry in self.entries if entry.visible_to(seat)]

    def format_failures(self) -> dict[Side, int]:
        """Per seat, the rejected replies whose text looked like tool calls (seats without any left out)."""
        counts: dict[Side, int] = {}
        for entry in self.entries:
            if entry.rejected is not None and entry.rejected.format_failure is not None:
                counts[entry.seat] = counts.get(entry.seat, 0) + 1
        return counts

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call of either seat, in order."""
        return [
            entry.tool_call
            for entry in self.entries
            if entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None
        ]
