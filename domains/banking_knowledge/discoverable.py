"""Hidden tools: internal agent tools the knowledge base names, which the agent unlocks and then calls
through a generic wrapper, and customer tools the agent hands over for the customer to call.

Calls are logged in the database (which tools were given, called, and with which arguments), so the
final database, and its hash, says what was done. The texts of results and refusals are τ²-bench's.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from tau2 import ErrorCode, ToolError

from .records import TODAY, det_id, put, query_text, rows_where
from .state import BankDB

CARDS_FILE = Path(__file__).parent / "tool_cards.json"
"""What unlocking (or handing over) a hidden tool shows: τ²-bench's description and parameter list of
each tool, as its agents read them."""

AGENT_QUALNAME = "KnowledgeTools"
"""The name τ²-bench's argument errors give the agent tools' owner (`KnowledgeTools.name() missing …`)."""
USER_QUALNAME = "KnowledgeUserTools"
MODULE = "tau2.domains.banking_knowledge.tools"
"""The module Python names before the owner when arguments are not a mapping (`….KnowledgeTools.name()
argument after ** must be a mapping`)."""

F = TypeVar("F", bound=Callable[..., str])


class Effect(StrEnum):
    """What a hidden tool does to the database: writes (every call is logged), reads (logged only when
    the task's allowlist names it), or neither."""

    WRITE = "write"
    READ = "read"
    GENERIC = "generic"


class Parameter(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    type: str
    required: bool
    description: str


class Card(BaseModel):
    """A hidden tool as its unlock result describes it."""

    model_config = ConfigDict(frozen=True)

    description: str
    parameters: tuple[Parameter, ...] = ()

    def render(self, name: str) -> str:
        """The tool's card: name, description and one line per parameter."""
        lines = [
            f"  - {p.name}: {p.type} ({'required' if p.required else 'optional'}) - {p.description}"
            for p in self.parameters
        ]
        parameters = "\n".join(lines) if lines else "  (no parameters)"
        return f"Tool: {name}\nDescription: {self.description}\nParameters:\n{parameters}"


class _Cards(BaseModel):
    agent: dict[str, Card]
    user: dict[str, Card]


@cache
def cards() -> _Cards:
    """Every hidden tool's card, read once."""
    return _Cards.model_validate_json(CARDS_FILE.read_bytes())


@dataclass(frozen=True)
class HiddenTool:
    """A hidden tool: its effect and its implementation, a function of the state and keyword arguments."""

    name: str
    effect: Effect
    function: Callable[..., str]

    @cached_property
    def parameters(self) -> list[inspect.Parameter]:
        """The tool's own parameters (after the state)."""
        return list(inspect.signature(self.function).parameters.values())[1:]


AGENT_HIDDEN: dict[str, HiddenTool] = {}
USER_HIDDEN: dict[str, HiddenTool] = {}


def agent_tool(effect: Effect) -> Callable[[F], F]:
    """Register a hidden agent tool (unlocked, then called through `call_discoverable_agent_tool`)."""
    return _register(AGENT_HIDDEN, effect)


def user_tool(effect: Effect) -> Callable[[F], F]:
    """Register a hidden customer tool (handed over, then called through `call_discoverable_user_tool`)."""
    return _register(USER_HIDDEN, effect)


def _register(registry: dict[str, HiddenTool], effect: Effect) -> Callable[[F], F]:
    def register(function: F) -> F:
        registry[function.__name__] = HiddenTool(function.__name__, effect, function)
        return function

    return register


# The agent side


def unlock_agent_tool(state: BankDB, name: str) -> str:
    """Unlock a hidden agent tool for this episode (kept in memory only, never in the database)."""
    tool = AGENT_HIDDEN.get(name)
    if tool is None:
        return _unknown_agent_tool(name)
    card = cards().agent[name]
    state.unlocked.add(name)
    return (
        f"Tool unlocked: {name}\nDescription: {card.description}\n\n{card.render(name)}\n\n"
        f"You can now use this tool by calling `call_discoverable_agent_tool` with "
        f"agent_tool_name='{name}' and the required arguments."
    )


def call_agent_tool(state: BankDB, name: str, arguments: str) -> str:
    """Run an unlocked hidden agent tool; a write, or a read the task's allowlist names, is logged
    after the call whatever it answered (R)."""
    tool = AGENT_HIDDEN.get(name)
    if tool is None:
        return _unknown_agent_tool(name)
    if name not in state.unlocked:
        return (
            f"Error: Tool '{name}' has not been unlocked. You must first use "
            "`unlock_discoverable_agent_tool` to unlock this tool before calling it."
        )
    try:
        parsed = json.loads(arguments, parse_int=float)
    except json.JSONDecodeError as error:
        return f"Error: Invalid JSON in arguments: {error}"
    problem = argument_error(f"{AGENT_QUALNAME}.{name}", tool, parsed)
    if problem is not None:
        return f"Error: Invalid arguments: {problem}"
    try:
        result = run(tool, state, parsed)
    except TypeError as error:  # a value of the wrong type: answered, and nothing logged (R)
        return f"Error: Invalid arguments: {error}"
    if tool.effect is Effect.WRITE or name in state.read_log_allowlist:
        record = {"tool_name": name, "status": "CALLED"}
        put(state.agent_discoverable_tools, det_id(f"agent_discoverable_tool:{name}"), record)
    return result


def list_agent_tools(state: BankDB) -> str:
    """The hidden agent tools whose calls are logged (the "none yet" answer is never given) (R)."""
    return f"Your called agent tools:\n{query_text(state, 'agent_discoverable_tools', '{}')}"


def _unknown_agent_tool(name: str) -> str:
    return f"Error: Unknown agent tool '{name}'. This tool is not available."


# The customer side


def give_user_tool(state: BankDB, name: str, arguments: str) -> str:
    """Hand a hidden customer tool over (logged once per tool); the arguments only advise the customer."""
    tool = USER_HIDDEN.get(name)
    if tool is None:
        return f"Error: Unknown discoverable tool '{name}'."
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as error:
        return f"Error: Invalid JSON in arguments: {error}"
    except ValueError as error:  # an integer too long to convert: τ²-bench's call fails with its text
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None
    known = {parameter.name for parameter in tool.parameters}
    for key in _keys(parsed):
        if key not in known and key != "self":
            return f"Error: Unexpected parameter: {key}"
    put(
        state.user_discoverable_tools,
        det_id(f"user_discoverable_tool:{name}"),
        {"tool_name": name, "status": "GIVEN"},
    )
    shown = json.dumps(parsed, indent=2) if parsed else "(no arguments)"
    return (
        f"Tool given to user: {name}\nDescription: {cards().user[name].description}\nArguments: {shown}\n\n"
        f"The user can now execute this action by calling `call_discoverable_user_tool` with "
        f"discoverable_tool_name='{name}' and the same arguments."
    )


def call_user_tool(state: BankDB, name: str, arguments: str) -> str:
    """Run a hidden customer tool: it checks it was handed over, then logs the call, then acts."""
    tool = USER_HIDDEN.get(name)
    if tool is None:
        return f"Error: Unknown discoverable tool '{name}'."
    try:
        parsed = json.loads(arguments, parse_int=float)
    except json.JSONDecodeError as error:
        return f"Error: Invalid JSON in arguments: {error}"
    keys = _keys(parsed)
    for parameter in tool.parameters:
        if parameter.default is inspect.Parameter.empty and parameter.name not in keys:
            return f"Error: Missing required parameter: {parameter.name}"
    known = {parameter.name for parameter in tool.parameters}
    for key in keys:
        if key not in known:
            return f"Error: Unexpected parameter: {key}"
    if not isinstance(parsed, dict):
        return (
            f"Error: Invalid arguments for tool '{name}': {_not_a_mapping(f'{USER_QUALNAME}.{name}', parsed)}"
        )
    try:
        return run(tool, state, parsed)
    except TypeError as error:  # a value of the wrong type, once the call is logged (R)
        return f"Error: Invalid arguments for tool '{name}': {error}"


def list_user_tools(state: BankDB) -> str:
    """The hidden customer tools handed over so far (the "none yet" answer is never given) (R)."""
    return f"Tools given to you by the agent:\n{query_text(state, 'user_discoverable_tools', '{}')}"


def not_given(state: BankDB, name: str) -> str | None:
    """The refusal of a customer tool that was never handed over, or None."""
    if rows_where(state.user_discoverable_tools, "tool_name", name):
        return None
    return (
        f"Error: Tool '{name}' has not been given to you by the agent. The agent must first use "
        "`give_discoverable_user_tool` to give this tool to you."
    )


def log_user_call(state: BankDB, name: str, arguments: dict[str, Any]) -> None:
    """Log a customer tool call, keyed by its arguments (a repeated call is logged once)."""
    record = {"tool_name": name, "arguments": arguments, "called_at": TODAY, "status": "CALLED"}
    key = det_id(f"user_discoverable_tool_call:{name}:{json.dumps(arguments, sort_keys=True)}")
    put(state.user_discoverable_tool_calls, key, record)


# Arguments


def run(tool: HiddenTool, state: BankDB, arguments: dict[str, Any]) -> str:
    """Call a hidden tool. A `TypeError` (a value of the wrong type, e.g. text where a number is compared)
    is the caller's to answer, as τ²-bench's wrappers answer it in words; any other exception fails the
    call, as it fails τ²-bench's, with the exception's text. What the tool wrote before it stays (R)."""
    try:
        return tool.function(state, **arguments)
    except TypeError:
        raise
    except Exception as error:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None


def _keys(parsed: Any) -> list[str]:
    """What τ²-bench iterates as argument names: a map's keys, a list's items, a string's characters;
    anything else fails the call, as iterating it fails τ²-bench's."""
    if isinstance(parsed, dict | str):
        return list(parsed)
    if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
        return list(parsed)
    raise ToolError(
        ErrorCode.INVALID_ARGUMENT, f"the arguments must be a JSON object, not {type(parsed).__name__}"
    )


def argument_error(qualname: str, tool: HiddenTool, arguments: Any) -> str | None:
    """The `TypeError` Python raises calling the tool with these keyword arguments, or None."""
    if not isinstance(arguments, dict):
        return _not_a_mapping(qualname, arguments)
    parameters = tool.parameters
    names = {parameter.name for parameter in parameters}
    for key in arguments:
        if key not in names:
            return f"{qualname}() got an unexpected keyword argument '{key}'"
    missing = [
        parameter.name
        for parameter in parameters
        if parameter.default is inspect.Parameter.empty and parameter.name not in arguments
    ]
    if not missing:
        return None
    quoted = [f"'{name}'" for name in missing]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = f"{', '.join(quoted[:-1])}, and {quoted[-1]}"
    plural = "argument" if len(missing) == 1 else "arguments"
    return f"{qualname}() missing {len(missing)} required positional {plural}: {listed}"


def _not_a_mapping(qualname: str, value: Any) -> str:
    return f"{MODULE}.{qualname}() argument after ** must be a mapping, not {type(value).__name__}"
