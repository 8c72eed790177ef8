"""LLM seats: the interactive agent, the solo agent and the simulated customer.

Each keeps its own chat transcript built only from its observations, asks its model for the next turn,
and turns malformed replies into error turns the orchestrator shows back to it, never into exceptions.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any

from pydantic import JsonValue

from tau2._jsonfile import map_strings, parse_json
from tau2.actors._history import ChatHistory
from tau2.actors._prompts import (
    END_CALL,
    SOLO_OPENING,
    agent_system_prompt,
    render_plan,
    solo_system_prompt,
    user_system_prompt,
)
from tau2.episode import DONE_TOOL, ActorTurn, Entry, Mode, RejectedReply, SeatContext, ToolCall
from tau2.errors import UserInputError
from tau2.llm import (
    Completion,
    ModelClient,
    ModelSpec,
    ModelToolCall,
    RateLimits,
    RetryPolicy,
    TextCalls,
    Usage,
    read_text_calls,
    safe_text,
)

END_CALL_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": END_CALL,
        "description": "Hang up: end the conversation with the agent. A short goodbye may come with it.",
        "parameters": {"type": "object", "properties": {}},
    },
}
"""The customer's stop mechanism: a call of this pseudo-tool becomes `ActorTurn(stop=True)`, carrying the
reply's text, if any, as a last message."""

MIXED_REPLY = "The reply mixed a message with tool calls. A turn is one message or tool calls, never both."
EMPTY_REPLY = "The reply was empty. Send a message or call a tool."
CUT_OFF = "Your reply was cut off at the token limit: keep replies shorter."
TEXT_CALLS = (
    "Your reply wrote tool calls as text, so nothing was run: make each tool call through the "
    "tool-calling interface (a function call), not as JSON in your message."
)
NOT_THROUGH_THE_INTERFACE = "they were written as text, not made through the tool-calling interface"
"""The format failure of well-formed calls written as text by a seat that does not read calls from text."""


class LLMActor(ABC):
    """Shared machinery of the LLM seats: transcript, model call, usage total and reply checking."""

    _talks = True
    """Whether the seat's text replies are messages to the other seat (not for the solo agent)."""

    def __init__(
        self,
        model: ModelSpec,
        *,
        retry: RetryPolicy | None = None,
        limits: RateLimits | None = None,
        text_tool_calls: bool = False,
    ) -> None:
        self.model = model
        self.text_tool_calls = text_tool_calls
        """Read a reply whose whole text is JSON tool calls as those calls (opt-in)."""
        self._client = ModelClient(model, retry=retry, limits=limits)
        self.total_usage = Usage()
        """Every call of the current episode, summed."""
        self._seed: int | None = None
        self._tools: list[dict[str, Any]] = []
        self._tool_names: list[str] = []
        self._history: ChatHistory | None = None
        self._call_ids: set[str] = set()

    async def start(self, context: SeatContext) -> None:
        """Build the system prompt and tool list for a new episode and forget the last one."""
        self._seed = context.seed
        self._tools = self._tool_schemas(context)
        self._tool_names = [str(schema["function"]["name"]) for schema in self._tools]
        self._history = ChatHistory(context.seat, self._system_prompt(context), self._opening())
        self.total_usage = Usage()
        self._call_ids = set()

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Ask the model for the next turn given the entries seen since the last one."""
        if self._history is None:
            raise RuntimeError(f"{type(self).__name__}.act called before start")
        self._history.observe(observation)
        completion = await self._client.complete(self._history.messages, self._tools, seed=self._seed)
        self.total_usage += completion.usage
        reading = self._text_calls(completion)
        format_failure: str | None = None
        if reading is None:
            turn = self._interpret(completion)
        elif reading.problem is None and self.text_tool_calls:
            turn = self._interpret(completion.model_copy(update={"text": None, "tool_calls": reading.calls}))
        else:
            format_failure = reading.problem or NOT_THROUGH_THE_INTERFACE
            turn = ActorTurn(error=self._text_calls_correction(reading, bool(completion.usage.truncated)))
        update: dict[str, Any] = {"usage": completion.usage}
        if turn.error is not None:
            if completion.usage.truncated and format_failure is None:
                update["error"] = f"{turn.error} {CUT_OFF}"
            update["rejected"] = RejectedReply(
                text=completion.text,
                tool_calls=completion.tool_calls,
                stop=_asks_to_stop(completion),
                format_failure=format_failure,
            )
        turn = turn.model_copy(update=update)
        self._history.record(turn)
        return turn

    def _text_calls(self, completion: Completion) -> TextCalls | None:
        """A text reply that looks like tool calls, read as calls of the seat's tools; None for any other
        reply, and for seats that take such text as a message (interactive seats not reading calls from
        text)."""
        if completion.tool_calls or not completion.text:
            return None
        if not self.text_tool_calls and self._talks:
            return None
        return read_text_calls(completion.text, truncated=bool(completion.usage.truncated))

    def _text_calls_correction(self, reading: TextCalls, truncated: bool) -> str:
        """What the seat is told when its text looked like tool calls that were not run."""
        if reading.problem is None:
            return TEXT_CALLS
        if not self.text_tool_calls:
            return (
                f"Your reply looks like tool calls written as text ({reading.problem}), so nothing was run: "
                "make each tool call through the tool-calling interface, not as JSON in your message."
            )
        shorter = " Make fewer calls per reply so that it fits." if truncated else ""
        return (
            f"Your reply looks like tool calls, but they could not be read: {reading.problem}. Nothing was "
            'run. Write each call as a JSON object {"name": "<tool>", "arguments": {...}}, with nothing '
            f"else in the reply.{shorter}"
        )

    @abstractmethod
    def _system_prompt(self, context: SeatContext) -> str:
        """The seat's instructions, built only from what it may know."""

    def _opening(self) -> str | None:
        """A first user message for seats that speak first."""
        return None

    def _tool_schemas(self, context: SeatContext) -> list[dict[str, Any]]:
        return list(context.tool_schemas)

    def _wrong_tool_hint(self) -> str:
        return ""

    def _on_text(self, text: str) -> ActorTurn:
        return ActorTurn(text=text)

    def _interpret(self, completion: Completion) -> ActorTurn:
        """Map the model's reply to a turn, or to an error turn saying how to correct it."""
        text = (completion.text or "").strip()
        if text and completion.tool_calls:
            return ActorTurn(error=MIXED_REPLY)
        if not completion.tool_calls:
            return self._on_text(text) if text else ActorTurn(error=EMPTY_REPLY)
        calls: list[ToolCall] = []
        problems: list[str] = []
        for raw in completion.tool_calls:
            if raw.name not in self._tool_names:
                problems.append(self._unknown_tool(raw.name))
                continue
            arguments = _parse_arguments(raw)
            if isinstance(arguments, str):
                problems.append(arguments)
            else:
                calls.append(ToolCall(call_id=self._call_id(raw), name=raw.name, arguments=arguments))
        if problems:
            return ActorTurn(error=" ".join(problems))
        return ActorTurn(tool_calls=calls)

    def _unknown_tool(self, name: str) -> str:
        known = ", ".join(f"`{tool}`" for tool in self._tool_names)
        return f"`{name}` is not one of your tools (you have: {known}).{self._wrong_tool_hint()}"

    def _call_id(self, raw: ModelToolCall) -> str:
        """The model's call ID, or a generated one when it gave none or reused one this episode."""
        call_id = (
            raw.id if raw.id and raw.id not in self._call_ids else f"tau2-call-{len(self._call_ids) + 1}"
        )
        self._call_ids.add(call_id)
        return call_id


def _asks_to_stop(completion: Completion) -> bool:
    """Whether a reply called the customer's hang-up pseudo-tool."""
    return any(call.name == END_CALL for call in completion.tool_calls)


def _parse_arguments(raw: ModelToolCall) -> dict[str, JsonValue] | str:
    """The call's arguments as an object, or a message saying why they cannot be used."""
    if not raw.arguments.strip():
        return {}
    try:
        value = parse_json(raw.arguments)
    except json.JSONDecodeError as exc:
        return (
            f"The arguments of `{raw.name}` are not valid JSON ({exc.msg} at character {exc.pos}). "
            "Call it again with its arguments as one JSON object."
        )
    if not isinstance(value, dict):
        return (
            f"The arguments of `{raw.name}` must be a JSON object of parameter names and values, "
            f"not {type(value).__name__}."
        )
    if "\\u" not in raw.arguments:
        return value
    return {safe_text(key): map_strings(item, safe_text) for key, item in value.items()}


class LLMAgent(LLMActor):
    """The interactive agent: back-office tools and policy, plus the reference plan in oracle-plan mode."""

    def _system_prompt(self, context: SeatContext) -> str:
        plan = None
        if context.config.oracle_plan:
            plan = render_plan(context.task.evaluation.solution, solo=context.config.mode is Mode.SOLO)
        return agent_system_prompt(context.policy, plan)

    def _wrong_tool_hint(self) -> str:
        return (
            " Anything that must happen on the customer's side has to be asked of the customer in a message."
        )


class SoloAgent(LLMActor):
    """The solo agent: both toolsets, the solo policy and the ticket; talks to nobody, ends with `done`."""

    def _system_prompt(self, context: SeatContext) -> str:
        ticket = context.task.ticket
        if not ticket:
            raise UserInputError(f"task {context.task.id!r} has no ticket, which solo mode needs")
        plan = (
            render_plan(context.task.evaluation.solution, solo=True) if context.config.oracle_plan else None
        )
        return solo_system_prompt(context.policy, ticket, plan)

    _talks = False

    def _opening(self) -> str:
        return SOLO_OPENING

    def _on_text(self, text: str) -> ActorTurn:
        return ActorTurn(
            error=f"You are working alone and nobody reads messages: call a tool, or `{DONE_TOOL}` when done."
        )


class LLMUser(LLMActor):
    """The simulated customer: device tools, its scenario and persona; hangs up by calling `end_call`."""

    def _system_prompt(self, context: SeatContext) -> str:
        return user_system_prompt(
            context.task.user_scenario.instructions, context.persona_text, talk_only=not context.tool_schemas
        )

    def _tool_schemas(self, context: SeatContext) -> list[dict[str, Any]]:
        names = {schema["function"]["name"] for schema in context.tool_schemas}
        if END_CALL in names:
            raise ValueError(f"a user tool is named {END_CALL!r}, which the LLM user reserves for hanging up")
        return [*context.tool_schemas, END_CALL_SCHEMA]

    def _wrong_tool_hint(self) -> str:
        return " Only the agent can use its own systems; ask the agent in a message if something is needed."

    def _interpret(self, completion: Completion) -> ActorTurn:
        """`end_call` alone hangs up, with the reply's text as a goodbye; else the usual rules apply."""
        if all(call.name != END_CALL for call in completion.tool_calls):
            return super()._interpret(completion)
        if len(completion.tool_calls) > 1:
            return ActorTurn(
                error=f"`{END_CALL}` ends the conversation and must be the only call of its turn."
            )
        return ActorTurn(text=(completion.text or "").strip() or None, stop=True)
