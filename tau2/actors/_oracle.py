"""The oracle agent: follows the task's reference solution, an upper bound and a self-test of each task."""

from __future__ import annotations

from pydantic import JsonValue

from tau2.actors._requests import RESOLVED_PHRASE, format_request
from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, Mode, SeatContext, ToolCall
from tau2.tasks import SolutionStep
from tau2.world import NEUTRAL_PHRASING, Side

CLOSING = f"{RESOLVED_PHRASE} Thank you for contacting us!"


def closing(info: list[str]) -> str:
    """The oracle's last message: the information the task requires the agent to state, then `CLOSING`."""
    if not info:
        return CLOSING
    return f"Here is the information you asked for: {'; '.join(info)}. {CLOSING}"


class OracleAgent:
    """Performs its own reference steps, asks the user for phone steps, then states the information the
    task requires and closes (or calls `done`).

    Interactive: one agent step per turn; a user step becomes a structured request, and the user's next
    message is taken as its report. Solo: every step is performed directly, then `done`.
    """

    def __init__(self, spec: ActorSpec | None = None) -> None:
        self.spec = spec
        self._steps: list[SolutionStep] = []
        self._info: list[str] = []
        self._next = 0
        self._waiting = False
        self._solo = False
        self._calls = 0
        self._phrasing = NEUTRAL_PHRASING

    async def start(self, context: SeatContext) -> None:
        """Take the plan from the task's reference solution."""
        self._steps = list(context.task.evaluation.solution)
        self._info = list(context.task.evaluation.communicate_info or [])
        self._next = 0
        self._waiting = False
        self._solo = context.config.mode is Mode.SOLO
        self._calls = 0
        self._phrasing = context.phrasing

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next step of the plan; the user's reply to a request completes that step."""
        if self._waiting:
            self._waiting = False
            self._next += 1
        if self._next < len(self._steps):
            step = self._steps[self._next]
            if self._solo or step.side is Side.AGENT:
                self._next += 1
                return self._call(step.name, step.arguments)
            self._waiting = True
            return ActorTurn(text=format_request(step.name, step.arguments, self._phrasing))
        if self._solo:
            return self._call(DONE_TOOL, {})
        return ActorTurn(text=closing(self._info))

    def _call(self, name: str, arguments: dict[str, JsonValue]) -> ActorTurn:
        self._calls += 1
        return ActorTurn(
            tool_calls=[ToolCall(call_id=f"oracle-{self._calls}", name=name, arguments=arguments)]
        )
