"""The `library-desk` actor kind: an agent that follows the desk's policy by rule, without the task's
reference solution, and asks the member for e-reader steps in tau2's offline request format."""

from __future__ import annotations

import re
from typing import Any

from tau2 import ActorSpec, ActorTurn, Entry, EntryKind, Mode, SeatContext, Side, ToolCall
from tau2.actors import RESOLVED_PHRASE, ActorKind, format_request
from tau2.episode import DONE_TOOL
from tau2.world import NEUTRAL_PHRASING

CARD = re.compile(r"\bL-\d+\b")
"""A library card number as members say it."""
READER_STEPS = ("sign_in", "turn_on_wifi", "update_app")
"""What the desk has the member do on the e-reader, every time (each is harmless when already done)."""


class DeskAgent:
    """Finds the card number in what the member says (solo: in the ticket), looks the member up, transfers a
    title the library no longer licenses, waives fines and renews the loan, then has each e-reader step done
    and closes."""

    def __init__(self) -> None:
        self._phrasing = NEUTRAL_PHRASING
        self._transfer_tool: str | None = None
        self._solo = False
        self._card: str | None = None
        self._member: dict[str, Any] | None = None
        self._done: set[str] = set()
        self._calls = 0

    async def start(self, context: SeatContext) -> None:
        """Forget the last episode; note how this domain words requests and which tool transfers."""
        self._phrasing = context.phrasing
        self._transfer_tool = context.transfer_tool
        self._solo = context.config.mode is Mode.SOLO
        self._card = self._card_in(context.task.ticket or "") if self._solo else None
        self._member = None
        self._done = set()
        self._calls = 0

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next step of the desk's policy, given what was said and what the lookup returned."""
        self._read(observation)
        if self._card is None:
            return ActorTurn(text="Could you tell me your library card number?")
        if self._member is None:
            return self._call("find_member", {"card_number": self._card})
        loan = self._member["loan"]
        if not loan["licensed"] and self._transfer_tool is not None:
            summary = f"The library no longer licenses {loan['title']}."
            return self._call(self._transfer_tool, {"summary": summary})
        desk_fixes = {"waive_fines": self._member["fines_due"] > 0, "renew_loan": not loan["active"]}
        for fix in (name for name, needed in desk_fixes.items() if needed and name not in self._done):
            self._done.add(fix)
            return self._call(fix, {"card_number": self._card})
        for step in (name for name in READER_STEPS if name not in self._done):
            self._done.add(step)
            if self._solo:
                return self._call(step, {})
            return ActorTurn(text=format_request(step, {}, self._phrasing))
        if self._solo:
            return self._call(DONE_TOOL, {})
        return ActorTurn(text=f"{RESOLVED_PHRASE} Enjoy your book!")

    def _read(self, observation: list[Entry]) -> None:
        """Take the card number from the member's messages and the member record from the lookup."""
        for entry in observation:
            if entry.kind is EntryKind.MESSAGE and entry.seat is Side.USER and self._card is None:
                self._card = self._card_in(entry.text or "")
            answered, result = entry.tool_call, entry.result
            looked_up = answered is not None and answered.name == "find_member"
            if entry.kind is EntryKind.TOOL_RESULT and looked_up and result is not None and result.ok:
                self._member = result.content if isinstance(result.content, dict) else None

    @staticmethod
    def _card_in(text: str) -> str | None:
        found = CARD.search(text)
        return found.group() if found else None

    def _call(self, name: str, arguments: dict[str, Any]) -> ActorTurn:
        self._calls += 1
        return ActorTurn(tool_calls=[ToolCall(call_id=f"desk-{self._calls}", name=name, arguments=arguments)])


def make_desk(spec: ActorSpec, mode: Mode) -> DeskAgent:
    """A desk agent for one episode (it takes no model)."""
    return DeskAgent()


DESK = ActorKind(
    "library-desk",
    {Side.AGENT: make_desk},
    description="the lending desk's policy, by rule",
    pairs_with=frozenset({"scripted", "llm", "human"}),
)
"""The kind the pack installs under the `tau2.actors` entry-point group."""
