"""The scripted user: performs exactly the action it is asked for in the offline request format
(`tau2.actors._requests`) and reports what it saw."""

from __future__ import annotations

from tau2.actors._requests import format_report, is_resolved, parse_request
from tau2.episode import ActorSpec, ActorTurn, Entry, EntryKind, SeatContext, ToolCall
from tau2.tasks import Task
from tau2.world import NEUTRAL_PHRASING, Side

GOODBYE = "Great, thank you for your help!"
GIVE_UP = "This isn't helping. Goodbye."
DEFAULT_PATIENCE = 3
"""Agent messages without a request the user tolerates before hanging up."""


class ScriptedUser:
    """States its reason for calling, runs each requested tool once and reports the result; hangs up
    when told the issue is resolved, or after `patience` agent messages in a row that ask for nothing.
    A brief's late information is said once, in answer to the first agent message after the opening
    that asks for no action, in place of the idle line.

    A transfer ends the episode in the orchestrator, so the user never needs to react to one.
    """

    def __init__(self, spec: ActorSpec | None = None, *, patience: int = DEFAULT_PATIENCE) -> None:
        self.spec = spec
        self.patience = patience
        self._reason = ""
        self._late: str | None = None
        self._spoke = False
        self._idle = 0
        self._pending: ToolCall | None = None
        self._calls = 0
        self._phrasing = NEUTRAL_PHRASING

    async def start(self, context: SeatContext) -> None:
        """Read the reason for calling from the task's user scenario."""
        self._reason = reason_for_call(context.task)
        self._late = late_info(context.task)
        self._spoke = False
        self._idle = 0
        self._pending = None
        self._calls = 0
        self._phrasing = context.phrasing

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Report a pending tool result, else answer the agent's latest message."""
        if self._pending is not None:
            return ActorTurn(text=self._report(self._pending, observation))
        text = next(
            (
                entry.text or ""
                for entry in reversed(observation)
                if entry.kind is EntryKind.MESSAGE and entry.seat is Side.AGENT
            ),
            "",
        )
        if is_resolved(text):
            return ActorTurn(text=GOODBYE, stop=True)
        request = parse_request(text, self._phrasing)
        if request is not None:
            self._idle = 0
            self._calls += 1
            call = ToolCall(call_id=f"user-{self._calls}", name=request.name, arguments=request.arguments)
            self._pending = call
            return ActorTurn(tool_calls=[call])
        if not self._spoke:
            self._spoke = True
            return ActorTurn(text=self._reason)
        if self._late is not None:
            late, self._late = self._late, None
            return ActorTurn(text=late)
        self._idle += 1
        if self._idle >= self.patience:
            return ActorTurn(text=GIVE_UP, stop=True)
        return ActorTurn(text=self._phrasing.idle_line)

    def _report(self, call: ToolCall, observation: list[Entry]) -> str:
        """A message stating the outcome of the call just made."""
        self._pending = None
        self._spoke = True
        for entry in observation:
            answered = entry.tool_call
            if (
                entry.kind is EntryKind.TOOL_RESULT
                and answered is not None
                and answered.call_id == call.call_id
            ):
                result = entry.result
                if result is None:
                    return format_report(call.name, "")
                return format_report(call.name, result.render(), result.ok)
        return format_report(call.name, None)


def reason_for_call(task: Task) -> str:
    """The opening line of the user seat: its reason for calling (or its whole brief if unstructured)."""
    return task.user_scenario.reason()


def late_info(task: Task) -> str | None:
    """What the user seat's brief holds back for later (`UserInstructions.late_info`), if anything."""
    instructions = task.user_scenario.instructions
    return None if isinstance(instructions, str) else instructions.late_info
