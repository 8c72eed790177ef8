"""The null agent: does nothing useful, a lower bound that must fail every task needing a fix."""

from __future__ import annotations

from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, Mode, SeatContext, ToolCall

NULL_LINE = "I'm sorry, I can't help with that."


class NullAgent:
    """Always sends the same apology (interactive), or calls `done` at once (solo)."""

    def __init__(self, spec: ActorSpec | None = None) -> None:
        self.spec = spec
        self._solo = False

    async def start(self, context: SeatContext) -> None:
        """Note the mode; nothing else is needed."""
        self._solo = context.config.mode is Mode.SOLO

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The same useless turn every time."""
        if self._solo:
            return ActorTurn(tool_calls=[ToolCall(call_id="null-done", name=DONE_TOOL)])
        return ActorTurn(text=NULL_LINE)
