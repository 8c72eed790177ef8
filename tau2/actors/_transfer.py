"""The transfer agent: hands the customer to a human at once; it succeeds exactly on transfer tasks."""

from __future__ import annotations

from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, Mode, SeatContext, ToolCall

SUMMARY = "The customer needs help that I cannot give."
FALLBACK_LINE = "I have asked for a human agent to take over."


class TransferAgent:
    """Calls the domain's transfer tool on its first turn; should the episode go on, it ends it or idles."""

    def __init__(self, spec: ActorSpec | None = None) -> None:
        self.spec = spec
        self._tool = ""
        self._solo = False
        self._turns = 0

    async def start(self, context: SeatContext) -> None:
        """Take the transfer tool the seat was given."""
        tool = context.transfer_tool
        if tool is None:
            raise ValueError(f"domain {context.task.domain!r} has no transfer tool")
        self._tool = tool
        self._solo = context.config.mode is Mode.SOLO
        self._turns = 0

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Transfer first; afterwards `done` (solo) or a fixed line (interactive)."""
        self._turns += 1
        if self._turns == 1:
            call = ToolCall(call_id="transfer-1", name=self._tool, arguments={"summary": SUMMARY})
            return ActorTurn(tool_calls=[call])
        if self._solo:
            return ActorTurn(tool_calls=[ToolCall(call_id=f"transfer-{self._turns}", name=DONE_TOOL)])
        return ActorTurn(text=FALLBACK_LINE)
