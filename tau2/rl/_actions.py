"""The text protocol of the RL environments: observations as JSON text, and actions as text or JSON.

An observation is a JSON array (ASCII only) of the entries a seat saw since its previous action. An action
is either a plain message, or a JSON object: `{"message": TEXT}`, `{"tool_calls": [{"name": N,
"arguments": {...}}, ...]}`, or `{"stop": true}` (the user hangs up, optionally with a `"message"`).
"""

from __future__ import annotations

import json
import string
from typing import Any

from pydantic import JsonValue

from tau2._jsonfile import parse_json
from tau2.episode import ActorTurn, Entry, EntryKind, ToolCall, Trajectory
from tau2.llm import safe_text
from tau2.world import Side

CHARSET = "".join(character for character in string.printable if character.isprintable())
"""Characters of observations and actions: printable ASCII (JSON escapes everything else)."""
MAX_OBSERVATION_CHARS = 1 << 20
"""Bound of the observation spaces; a longer observation is an error rather than a silent cut."""
MAX_ACTION_CHARS = 4096
"""Bound of the action spaces: a longer action is refused before it reaches the episode."""
MAX_ACTION_DEPTH = 32
"""How deeply a JSON action may nest arrays and objects; a deeper one is an error turn (no tool takes
arguments nested anywhere near as deep, and the depth bounds the work every later step does on them)."""


def entry_view(entry: Entry) -> dict[str, Any]:
    """What a seat sees of one entry, without timing or usage (so equal episodes give equal views)."""
    view: dict[str, Any] = {"seat": entry.seat.value, "kind": entry.kind.value}
    if entry.text is not None:
        view["text"] = entry.text
    call = entry.tool_call
    if call is not None:
        view["call_id"] = call.call_id
        view["name"] = call.name
        if entry.kind is EntryKind.TOOL_CALL:
            view["arguments"] = call.arguments
    if entry.result is not None:
        view["ok"] = entry.result.ok
        view["content"] = entry.result.render()
    return view


def encode_observation(entries: list[Entry]) -> str:
    """The observation text of `entries`: a JSON array of their views, ASCII only."""
    return json.dumps([entry_view(entry) for entry in entries], ensure_ascii=True, sort_keys=True)


def message_action(text: str) -> str:
    """The action sending `text` to the other seat."""
    return json.dumps({"message": text}, ensure_ascii=True)


def tool_call_action(name: str, arguments: dict[str, Any] | None = None) -> str:
    """The action calling one tool."""
    return json.dumps({"tool_calls": [{"name": name, "arguments": arguments or {}}]}, ensure_ascii=True)


def stop_action(farewell: str | None = None) -> str:
    """The user's action ending the conversation, with an optional goodbye."""
    action: dict[str, Any] = {"stop": True}
    if farewell:
        action["message"] = farewell
    return json.dumps(action, ensure_ascii=True)


def checked_action(action: object) -> str:
    """`action` when it lies within the action space's bounds (text of at most `MAX_ACTION_CHARS`
    characters); otherwise `ValueError`, raised before anything reaches the episode."""
    if not isinstance(action, str):
        raise ValueError(f"an action is text (str), not {type(action).__name__}")
    if len(action) > MAX_ACTION_CHARS:
        raise ValueError(f"an action of {len(action)} characters exceeds the limit of {MAX_ACTION_CHARS}")
    return action


def parse_action(action: str, call_prefix: str) -> ActorTurn:
    """The turn an action asks for. Text not starting with `{` is a message (lone surrogates become
    U+FFFD, so the record always encodes); a JSON action that is malformed, nested too deeply or escapes
    a lone surrogate is an error turn, shown back to the seat like any actor error. Call ids are
    `call_prefix` + position."""
    action = safe_text(action)
    text = action.strip()
    if not text.startswith("{"):
        return ActorTurn(text=action)
    try:
        data = parse_json(text)
    except json.JSONDecodeError as error:
        return ActorTurn(error=f"the action is not valid JSON: {error.msg} at column {error.colno}")
    except RecursionError:
        return ActorTurn(error=f"the action nests arrays and objects more than {MAX_ACTION_DEPTH} deep")
    if not isinstance(data, dict):
        return ActorTurn(error="a JSON action must be an object")
    problem = _content_problem(data)
    if problem is not None:
        return ActorTurn(error=problem)
    unknown = sorted(set(data) - {"message", "tool_calls", "stop"})
    if unknown:
        return ActorTurn(error=f"unknown action keys: {', '.join(unknown)} (use message, tool_calls, stop)")
    message = data.get("message")
    if message is not None and not isinstance(message, str):
        return ActorTurn(error="`message` must be a string")
    calls, problem = _tool_calls(data.get("tool_calls", []), call_prefix)
    if problem is not None:
        return ActorTurn(error=problem)
    return ActorTurn(text=message, tool_calls=calls, stop=data.get("stop") is True)


def _tool_calls(items: JsonValue, call_prefix: str) -> tuple[list[ToolCall], str | None]:
    """Tool calls from the `tool_calls` list, or why it is malformed."""
    if not isinstance(items, list):
        return [], "`tool_calls` must be a list"
    calls: list[ToolCall] = []
    for position, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return [], f"tool_calls[{position}] must be an object with a string `name`"
        arguments = item.get("arguments", {})
        if not isinstance(arguments, dict):
            return [], f"tool_calls[{position}].arguments must be an object"
        calls.append(ToolCall(call_id=f"{call_prefix}{position}", name=item["name"], arguments=arguments))
    return calls, None


def _content_problem(data: dict[str, Any]) -> str | None:
    """What makes parsed JSON unfit to become a turn: nesting deeper than `MAX_ACTION_DEPTH`, or a string
    with a lone surrogate (which no record could encode); None when it is fit. Walked without recursion."""
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str) and safe_text(item) is not item:
            return "the action escapes a lone UTF-16 surrogate, which is not text"
        if isinstance(item, dict | list) and depth > MAX_ACTION_DEPTH:
            return f"the action nests arrays and objects more than {MAX_ACTION_DEPTH} deep"
        if isinstance(item, dict):
            pending.extend((part, depth + 1) for pair in item.items() for part in pair)
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
    return None


class SeatView:
    """Turns what the orchestrator shows one seat into observation text, remembering how far the seat has
    seen so that the end of the episode shows it exactly the entries it has not seen yet."""

    def __init__(self, seat: Side) -> None:
        self.seat = seat
        self._seen = -1

    def observe(self, entries: list[Entry]) -> str:
        """The observation text of entries handed to the seat."""
        if entries:
            self._seen = max(self._seen, entries[-1].index)
        text = encode_observation(entries)
        if len(text) > MAX_OBSERVATION_CHARS:
            raise RuntimeError(f"an observation of {len(text)} characters exceeds {MAX_OBSERVATION_CHARS}")
        return text

    def final(self, trajectory: Trajectory) -> str:
        """The observation text of the finished episode's entries visible to the seat and not yet seen."""
        return self.observe(
            [
                entry
                for entry in trajectory.entries
                if entry.index > self._seen and entry.visible_to(self.seat)
            ]
        )
