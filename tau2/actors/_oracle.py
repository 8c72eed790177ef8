"""The oracle agent: follows the task's reference solution, an upper bound and a self-test of each task."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from pydantic import JsonValue

from tau2.actors._requests import RESOLVED_PHRASE, format_request, shows_result
from tau2.episode import (
    DONE_TOOL,
    ActorSpec,
    ActorTurn,
    Entry,
    EntryKind,
    Mode,
    SeatContext,
    ToolCall,
    replay_reference_results,
)
from tau2.tasks import SolutionStep, Task
from tau2.world import Side, ToolResult

CLOSING = f"{RESOLVED_PHRASE} Thank you for contacting us!"
MAX_REQUESTS = 3
"""Times the oracle asks for one of the customer's steps before it hands the customer to a human."""
REPORT_BACK = "Then tell me what it shows."
"""Follows every request: the customer's reply must show what the step showed."""
ASK_AGAIN = "That step does not seem to have been done on your side."
TRANSFER_SUMMARY = "The customer could not complete the steps needed to resolve the issue."
NO_TRANSFER = "I cannot resolve this from here: the steps on your side could not be completed."
"""The oracle's last line in a domain without a transfer tool; it never claims the issue resolved."""
AFTER_CLOSING_SUMMARY = "The issue is resolved; the customer went on talking after the closing."
AFTER_CLOSING = "Everything I can do for you here is done."
"""The oracle's answer to a customer who goes on after the closing, in a domain without a transfer tool."""


def closing(info: list[str]) -> str:
    """The oracle's last message: the information the task requires the agent to state, then `CLOSING`."""
    if not info:
        return CLOSING
    return f"Here is the information you asked for: {'; '.join(info)}. {CLOSING}"


def request(step: SolutionStep, context: SeatContext) -> str:
    """The oracle's message asking the customer to perform `step` and to say what it showed."""
    return f"{format_request(step.name, step.arguments, context.phrasing)} {REPORT_BACK}"


class OracleAgent:
    """Performs its own reference steps, asks the user for the user seat's steps, then states the
    information the task requires and closes (or calls `done`).

    Interactive: one agent step per turn; a user step becomes a structured request. The oracle cannot see
    the customer's side, so it judges a step by its effect: when it starts, it rehearses the whole
    reference solution on a world of its own (built from the task and the domain's data, never from the
    episode's world), which tells it what each customer step returns. The customer's reply completes the
    step only when it shows that result (`shows_result`); a reply that only says the step was done, writes
    the call out as text or reports a failure gets the request again, up to `MAX_REQUESTS` times, before
    the customer is transferred to a human. So the oracle never says the issue is resolved while a step
    is not shown done. A customer who answers the closing instead of ending the call is transferred too:
    the oracle never repeats its claim that the issue is resolved. Solo: every step is performed
    directly, then `done`.
    """

    def __init__(self, spec: ActorSpec | None = None) -> None:
        self.spec = spec
        self._steps: list[SolutionStep] = []
        self._effects: dict[int, ToolResult] = {}
        self._info: list[str] = []
        self._next = 0
        self._waiting = False
        self._requests = 0
        self._closed = False
        self._solo = False
        self._transfer_tool: str | None = None
        self._calls = 0
        self._context: SeatContext | None = None

    async def start(self, context: SeatContext) -> None:
        """Take the plan from the task's reference solution and, when the customer has steps in it,
        rehearse it to learn what each of them returns."""
        self._steps = list(context.task.evaluation.solution)
        self._solo = context.config.mode is Mode.SOLO
        self._effects = {} if self._solo else rehearse(context)
        self._info = list(context.task.evaluation.communicate_info or [])
        self._next = 0
        self._waiting = False
        self._requests = 0
        self._closed = False
        self._transfer_tool = context.transfer_tool
        self._calls = 0
        self._context = context

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next step of the plan; a reply showing a requested step's result completes that step."""
        if self._closed:
            return self._give_up(AFTER_CLOSING_SUMMARY, AFTER_CLOSING)
        if self._waiting:
            if self._shown_done(_last_customer_message(observation)):
                self._waiting = False
                self._next += 1
            elif self._requests < MAX_REQUESTS:
                self._requests += 1
                return ActorTurn(text=f"{ASK_AGAIN} {self._request()}")
            else:
                return self._give_up(TRANSFER_SUMMARY, NO_TRANSFER)
        if self._next < len(self._steps):
            step = self._steps[self._next]
            if self._solo or step.side is Side.AGENT:
                self._next += 1
                return self._call(step.name, step.arguments)
            self._waiting = True
            self._requests = 1
            return ActorTurn(text=self._request())
        if self._solo:
            return self._call(DONE_TOOL, {})
        self._closed = True
        return ActorTurn(text=closing(self._info))

    def _request(self) -> str:
        """The request for the customer step the oracle waits for."""
        assert self._context is not None, "the oracle was started"
        return request(self._steps[self._next], self._context)

    def _shown_done(self, reply: str) -> bool:
        """Whether the customer's reply shows the result the awaited step returns when it succeeds."""
        effect = self._effects.get(self._next)
        return effect is not None and effect.ok and shows_result(reply, effect, said=self._request())

    def _give_up(self, summary: str, line: str) -> ActorTurn:
        """Hand the customer to a human with `summary`, or say `line` where the domain has no transfer."""
        if self._transfer_tool is None:
            return ActorTurn(text=line)
        return self._call(self._transfer_tool, {"summary": summary})

    def _call(self, name: str, arguments: dict[str, JsonValue]) -> ActorTurn:
        self._calls += 1
        return ActorTurn(
            tool_calls=[ToolCall(call_id=f"oracle-{self._calls}", name=name, arguments=arguments)]
        )


REHEARSALS_KEPT = 256
"""Rehearsals kept for the trials of the same task, which share its object (the most recently used)."""
_rehearsals: OrderedDict[tuple[int, Path | None], tuple[Task, dict[int, ToolResult]]] = OrderedDict()
"""Rehearsals by the task object's identity and data directory; each keeps its task, so the identity
cannot pass to another task while the rehearsal is kept."""


def rehearse(context: SeatContext) -> dict[int, ToolResult]:
    """What each customer step of the reference solution returns when the whole solution is played in
    order on a fresh world of the task (the effect a report of the step must show), by the step's place;
    empty when the customer has no step. Played once for the trials of one task object."""
    task = context.task
    key = (id(task), context.data_dir)
    kept = _rehearsals.get(key)
    if kept is not None and kept[0] is task:
        _rehearsals.move_to_end(key)
        return kept[1]
    steps = task.evaluation.solution
    effects: dict[int, ToolResult] = {}
    if any(step.side is Side.USER for step in steps):
        _, results = replay_reference_results(task, context.data_dir)
        pairs = enumerate(zip(steps, results, strict=True))
        effects = {place: result for place, (step, result) in pairs if step.side is Side.USER}
    _rehearsals[key] = (task, effects)
    if len(_rehearsals) > REHEARSALS_KEPT:
        _rehearsals.popitem(last=False)
    return effects


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
