"""Tool calls a model wrote as JSON in its message text, as models served without a tool-call parser do.

A reply counts only when its whole text is the call or calls: a JSON object `{"name": …, "arguments": {…}}`
(or a list of them), bare, in one Markdown code fence, or in `<tool_call>…</tool_call>` tags (the Qwen and
Hermes chat templates), and every call names one of the seat's tools. Anything else stays a message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from tau2.llm import ModelToolCall

_FENCE = re.compile(r"```(?:json)?[ \t]*\n?(?P<body>.*?)\n?[ \t]*```", re.DOTALL | re.IGNORECASE)
_TAGGED = re.compile(r"<tool_call>(?P<body>.*?)</tool_call>", re.DOTALL)


def calls_in_text(text: str, tools: Collection[str]) -> list[ModelToolCall] | None:
    """The calls `text` consists of, or None when it is not exactly well-formed calls of `tools`."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[`<":
        return None
    calls: list[ModelToolCall] = []
    for body in _bodies(stripped):
        try:
            value = json.loads(body)
        except ValueError:
            return None
        for item in value if isinstance(value, list) else [value]:
            call = _call(item, tools)
            if call is None:
                return None
            calls.append(call)
    return calls or None


def _bodies(text: str) -> list[str]:
    """The JSON texts the reply is made of: inside its tags, inside its one fence, or the text itself."""
    tagged = list(_TAGGED.finditer(text))
    if tagged:
        between = _TAGGED.sub("", text)
        return [match.group("body") for match in tagged] if not between.strip() else []
    fenced = _FENCE.fullmatch(text)
    return [fenced.group("body") if fenced else text]


def _call(item: Any, tools: Collection[str]) -> ModelToolCall | None:
    """One `{"name", "arguments"}` object naming a seat's tool, with object arguments (or their JSON text)."""
    if not isinstance(item, dict) or set(item) - {"name", "arguments", "parameters"}:
        return None
    name = item.get("name")
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None
    if not isinstance(name, str) or name not in tools or not isinstance(arguments, dict):
        return None
    return ModelToolCall(id=None, name=name, arguments=json.dumps(arguments))
