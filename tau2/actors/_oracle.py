"""The oracle agent: follows the task's reference solution, an upper bound and a self-test of each task."""

from __future__ import annotations

from pydantic import JsonValue

from tau2.actors._requests import RESOLVED_PHRASE, format_request, reports_failure
from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, EntryKind, Mode, SeatContext, ToolCall
from tau2.llm import read_text_calls
from tau2.tasks import SolutionStep
from tau2.world import NEUTRAL_PHRASING, Side

CLOSING = f"{RESOLVED_PHRASE} Thank you for contacting us!"
MAX_REQUESTS = 3
"""Times the oracle asks for one of the customer's steps before it hands the customer to a human."""
ASK_AGAIN = "That step does not seem to have been done on your side."
TRANSFER_SUMMARY = "The customer could not complete the steps needed to resolve the issue."
NO_TRANSFER = "I cannot resolve this from here: the steps on your side could not be completed."
"""The oracle's last line in a domain without a transfer tool; it never claims the issue resolved."""


def closing(info: list[str]) -> str:
    """The oracle's last message: the information the task requires the agent to state, then `CLOSING`."""
    if not info:
        return CLOSING
    return f"Here is the information you asked for: {'; '.join(info)}. {CLOSING}"


class OracleAgent:
    """Performs its own reference steps, asks the user for the user seat's steps, then states the
    information the task requires and closes (or calls `done`).

    Interactive: one agent step per turn; a user step becomes a structured request, and the user's next
    message is taken as its report, unless it shows the step was not done (the customer wrote the call out
    as text instead of making it, or reported that it failed): then the request is repeated, up to
    `MAX_REQUESTS` times, before the customer is transferred to a human. A customer who answers the
    closing instead of ending the call is transferred too: the oracle never repeats its claim that the
    issue is resolved. Solo: every step is performed directly, then `done`.
    """

    def __init__(self, spec: ActorSpec | None = None) -> None:
        self.spec = spec
        self._steps: list[SolutionStep] = []
        self._info: list[str] = []
        self._next = 0
        self._waiting = False
        self._requests = 0
        self._closed = False
        self._solo = False
        self._transfer_tool: str | None = None
        self._calls = 0
        self._phrasing = NEUTRAL_PHRASING

    async def start(self, context: SeatContext) -> None:
        """Take the plan from the task's reference solution."""
        self._steps = list(context.task.evaluation.solution)
        self._info = list(context.task.evaluation.communicate_info or [])
        self._next = 0
        self._waiting = False
        self._requests = 0
        self._closed = False
        self._solo = context.config.mode is Mode.SOLO
        self._transfer_tool = context.transfer_tool
        self._calls = 0
        self._phrasing = context.phrasing

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next step of the plan; the user's reply to a request completes that step."""
        if self._closed:
            return self._give_up()
        if self._waiting:
            step = self._steps[self._next]
            if not _not_done(_last_customer_message(observation), step.name):
                self._waiting = False
                self._next += 1
            elif self._requests < MAX_REQUESTS:
                self._requests += 1
                return ActorTurn(
                    text=f"{ASK_AGAIN} {format_request(step.name, step.arguments, self._phrasing)}"
                )
            else:
                return self._give_up()
        if self._next < len(self._steps):
            step = self._steps[self._next]
            if self._solo or step.side is Side.AGENT:
                self._next += 1
                return self._call(step.name, step.arguments)
            self._waiting = True
            self._requests = 1
            return ActorTurn(text=format_request(step.name, step.arguments, self._phrasing))
        if self._solo:
            return self._call(DONE_TOOL, {})
        self._closed = True
        return ActorTurn(text=closing(self._info))

    def _give_up(self) -> ActorTurn:
        """Hand the customer to a human (or say the issue cannot be resolved here), claiming nothing."""
        if self._transfer_tool is None:
            return ActorTurn(text=NO_TRANSFER)
        return self._call(self._transfer_tool, {"summary": TRANSFER_SUMMARY})

    def _call(self, name: str, arguments: dict[str, JsonValue]) -> ActorTurn:
        self._calls += 1
        return ActorTurn(
            tool_calls=[ToolCall(call_id=f"oracle-{self._calls}", name=name, arguments=arguments)]
        )


def _last_customer_message(observation: list[Entry]) -> str:
    """The customer's latest message among the entries the agent just observed ("" if none)."""
    return next(
        (
            entry.text or ""
            for entry in reversed(observation)
            if entry.kind is EntryKind.MESSAGE and entry.seat is Side.USER
        ),
        "",
    )


def _not_done(reply: str, step: str) -> bool:
    """Whether the customer's reply to a request for `step` shows the step was not done: it writes tool
    calls out as text instead of making them, or reports that the step failed."""
    return read_text_calls(reply) is not None or reports_failure(reply, step)
