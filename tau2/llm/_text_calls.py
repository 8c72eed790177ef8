"""Tool calls a model wrote as JSON in its message text, as models do when the server has no tool-call
parser, or when the form they write is not the one their chat template's parser reads.

`read_text_calls` tells three cases apart: text that does not look like tool calls (None); text that is
exactly well-formed calls (`TextCalls.calls`, whose names the seat checks as it checks any call); and
text that looks like calls but cannot be read as such (`TextCalls.problem` says why: cut off at the token
cap, not valid JSON, objects that are not calls, other text around the calls).

A call is a JSON object `{"name": …, "arguments": {…}}` (`parameters` is read as `arguments`, and
arguments may be given as JSON text). A reply may hold several: in a list, one after another (separated by
white space or commas), each bare, in a Markdown code fence, or in `<tool_call>…</tool_call>` tags (the
Qwen and Hermes chat templates); nothing else may be in the text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.llm._transports import ModelToolCall

_LOOKS_LIKE_CALL = re.compile(r'<tool_call>|"name"\s*:\s*"')
"""A tool-call tag, or a JSON `name` key with a text value."""
_OPENING = re.compile(r"<tool_call>|```[A-Za-z]*")
_CLOSING = {"<": "</tool_call>", "`": "```"}
_SEPARATORS = " \t\r\n,"
_DECODER = json.JSONDecoder()


class TextCalls(BaseModel):
    """Text that looks like tool calls: the calls it holds, or why it cannot be read as calls."""

    model_config = ConfigDict(frozen=True)

    calls: list[ModelToolCall] = []
    """Every call, when the whole text is well-formed calls (else empty)."""
    problem: str | None = None
    """Why the text cannot be taken as calls; None when it can."""


def read_text_calls(text: str, *, truncated: bool = False) -> TextCalls | None:
    """`text` read as tool calls, or None when it does not look like tool calls at all.

    `truncated`: the reply was cut at the token cap, which explains JSON that ends inside a call.
    """
    if not _LOOKS_LIKE_CALL.search(text):
        return None
    bodies, unclosed, prose = _bodies(text.strip())
    calls: list[ModelToolCall] = []
    for number, body in enumerate(bodies, start=1):
        values, error = _values(body)
        if error is not None or (unclosed and number == len(bodies)):
            return TextCalls(problem=_broken(error, truncated))
        for item in [item for value in values for item in (value if isinstance(value, list) else [value])]:
            call = _call(item)
            if isinstance(call, str):
                return TextCalls(problem=call)
            calls.append(call)
    if prose:
        return TextCalls(problem="the calls are mixed with other text")
    if not calls:
        return TextCalls(problem="it holds no call")
    return TextCalls(calls=calls)


def _bodies(text: str) -> tuple[list[str], bool, bool]:
    """The JSON texts of the reply (inside its tags or fences, else the text itself), whether the last
    tag or fence is left open, and whether anything but separators lies outside them."""
    if text[:1] in "{[" and _after_json(text, 0) == len(text):
        return [text], False, False
    bodies: list[str] = []
    prose = False
    position = 0
    while (opening := _OPENING.search(text, position)) is not None:
        prose = prose or bool(text[position : opening.start()].strip(_SEPARATORS))
        closing = text.find(_CLOSING[opening.group()[0]], _after_json(text, opening.end()))
        if closing < 0:
            bodies.append(text[opening.end() :])
            return bodies, True, prose
        bodies.append(text[opening.end() : closing])
        position = closing + len(_CLOSING[opening.group()[0]])
    if not bodies:
        return [text], False, False
    return bodies, False, prose or bool(text[position:].strip(_SEPARATORS))


def _after_json(text: str, start: int) -> int:
    """Where the JSON values written one after another from `start` end (separators after them included),
    or where the first one that does not read starts: a fence or a tag inside a JSON string is text of the
    call, not its end."""
    position = start
    while True:
        while position < len(text) and text[position] in _SEPARATORS:
            position += 1
        if position == len(text) or text[position] not in "{[":
            return position
        try:
            _, position = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError:
            return position


def _values(body: str) -> tuple[list[Any], json.JSONDecodeError | str | None]:
    """The JSON values `body` holds one after another, and what stopped the reading, if anything."""
    values: list[Any] = []
    position = 0
    while True:
        while position < len(body) and body[position] in _SEPARATORS:
            position += 1
        if position == len(body):
            return values, None
        if body[position] not in "{[":
            return values, "other text"
        try:
            value, position = _DECODER.raw_decode(body, position)
        except json.JSONDecodeError as error:
            return values, error
        values.append(value)


def _broken(error: json.JSONDecodeError | str | None, truncated: bool) -> str:
    """Why JSON that looks like calls could not be read (`error` None: its tag or fence is left open)."""
    if isinstance(error, str):
        return "the calls are mixed with other text"
    if error is not None and not _ends_early(error):
        return f"its JSON is not valid ({error.msg} at character {error.pos})"
    if truncated:
        return "the reply was cut off at the token limit before its calls were complete"
    return "its JSON ends before the calls are complete"


def _ends_early(error: json.JSONDecodeError) -> bool:
    """Whether the JSON stopped in the middle of a value rather than going wrong before its end."""
    return error.pos >= len(error.doc.rstrip()) or error.msg.startswith("Unterminated")


def _call(item: Any) -> ModelToolCall | str:
    """One `{"name", "arguments"}` object as a call, or why it is not one."""
    if not isinstance(item, dict) or set(item) - {"name", "arguments", "parameters"}:
        shown = json.dumps(item, ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return f"{shown} is not a call (an object with `name` and `arguments` only)"
    name = item.get("name")
    if not isinstance(name, str):
        return "a call has no tool name"
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return f"the arguments of `{name}` are not valid JSON"
    if not isinstance(arguments, dict):
        return f"the arguments of `{name}` are not a JSON object"
    return ModelToolCall(id=None, name=name, arguments=json.dumps(arguments))
