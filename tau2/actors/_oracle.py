"""The oracle agent: follows the task's reference solution, an upper bound and a self-test of each task."""

from __future__ import annotations

import json

from pydantic import JsonValue

from tau2.actors._requests import RESOLVED_PHRASE, format_request, reports_failure
from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, EntryKind, Mode, SeatContext, ToolCall
from tau2.llm import read_text_calls
from tau2.tasks import SolutionStep
from tau2.world import NEUTRAL_PHRASING, Rehearsal, Side, StateChange, StateMark, WorldView

CLOSING = f"{RESOLVED_PHRASE} Thank you for contacting us!"
MAX_REQUESTS = 3
"""Times the oracle asks for one of the customer's steps before it hands the customer to a human."""
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


class OracleAgent:
    """Performs its own reference steps, asks the user for the user seat's steps, then states the
    information the task requires and closes (or calls `done`).

    Interactive: one agent step per turn; a customer step becomes a structured request, and the oracle
    judges it by the world, not by what the customer says. In an episode it is handed a read-only view of
    the world (`observe_world`); it rehearses the reference solution on a scratch copy of the starting
    state to learn what each customer step changes, and takes the step as done only once the world shows
    that change. A step that changes nothing (a read, or a state already in place) is taken on the
    customer's reply unless the reply shows it was not done (a call written out as text, a reported
    failure), as is every step when the oracle is driven without a view. A step not done is asked for
    again, up to `MAX_REQUESTS` times, before the customer is transferred to a human, so the oracle never
    says the issue is resolved while the world says otherwise. A customer who answers the closing instead
    of ending the call is transferred too: the oracle never repeats its claim that the issue is resolved.
    Solo: every step is performed directly, then `done`.
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
        self._view: WorldView | None = None
        self._rehearsal: Rehearsal | None = None

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
        self._view = None
        self._rehearsal = None

    def observe_world(self, view: WorldView) -> None:
        """Keep the episode's world view, to judge the customer's steps by their effect."""
        self._view = view

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next step of the plan; a requested step is complete once the world (or, for a step with no
        effect to see, the customer's reply) shows it done."""
        if self._closed:
            return self._give_up(AFTER_CLOSING_SUMMARY, AFTER_CLOSING)
        if self._waiting:
            step = self._steps[self._next]
            if self._step_done(_last_customer_message(observation)):
                self._waiting = False
                self._next += 1
            elif self._requests < MAX_REQUESTS:
                self._requests += 1
                return ActorTurn(
                    text=f"{ASK_AGAIN} {format_request(step.name, step.arguments, self._phrasing)}"
                )
            else:
                return self._give_up(TRANSFER_SUMMARY, NO_TRANSFER)
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

    def _step_done(self, reply: str) -> bool:
        """Whether the awaited customer step is done: the world shows the change the step makes, or, for a
        step without one to see, the reply does not show it undone."""
        effect = self._effect(self._next)
        if effect is None or self._view is None:
            return not _not_done(reply, self._steps[self._next].name)
        before, expected = effect
        return expected <= _change_facts(self._view.changes_since(before))

    def _effect(self, place: int) -> tuple[StateMark, frozenset[str]] | None:
        """The state before the reference step at `place` and the changes it makes, from a rehearsal of the
        reference solution on the view's starting state (played once, when first needed); None without a
        view, or for a step that changes nothing or fails."""
        if self._view is None:
            return None
        if self._rehearsal is None:
            last = max(index for index, step in enumerate(self._steps) if step.side is Side.USER)
            calls = [(step.side, step.name, step.arguments) for step in self._steps[: last + 1]]
            self._rehearsal = self._view.rehearse(calls)
        changes = self._rehearsal.changes[place]
        if not changes or not self._rehearsal.results[place].ok:
            return None
        return self._rehearsal.before[place], _change_facts(changes)

    def _give_up(self, summary: str, line: str) -> ActorTurn:
        """Hand the customer to a human with `summary`, or say `line` where the domain has no transfer;
        either way claiming nothing."""
        if self._transfer_tool is None:
            return ActorTurn(text=line)
        return self._call(self._transfer_tool, {"summary": summary})

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


def _change_facts(changes: list[StateChange]) -> frozenset[str]:
    """State changes as comparable facts: where, how, and to what value."""
    return frozenset(
        f"{change.path}\0{change.kind.value}\0{json.dumps(change.after, sort_keys=True)}"
        for change in changes
    )
