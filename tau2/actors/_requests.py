"""The offline request format the oracle agent and the scripted user exchange, defined once for both.

A request is a prefix, the name of one of the customer seat's tools and its arguments as one JSON object:
`Please do this on your side: plug_in {}`. The prefix is the domain's `RequestPhrasing` (telecom says "on
your phone"); the neutral prefix is understood in every domain. The customer's report of the action shows
what the action's tool returned, which is how the agent tells an action done from one only claimed.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.world import NEUTRAL_PHRASING, RequestPhrasing, ToolResult

RESOLVED_PHRASE = "Your issue is resolved."
"""The oracle's closing sentence; the scripted user ends the call when it reads it."""
FAILED_REPORT = "but it failed:"
"""What the scripted user's report of an action says when the action failed."""
MIN_EVIDENCE = 8
"""Letters and digits a part of an action's result needs before it shows, on its own, that the action was
done (the whole result shows it whatever its length)."""

_DECODER = json.JSONDecoder()


class Request(BaseModel):
    """One action of the customer seat the agent asks the user to perform."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict[str, JsonValue]


def format_request(name: str, arguments: dict[str, Any], phrasing: RequestPhrasing = NEUTRAL_PHRASING) -> str:
    """The sentence asking the user seat to call `name` with `arguments`, in the domain's wording."""
    return f"{phrasing.request_prefix} {name} {json.dumps(arguments, sort_keys=True)}"


def parse_request(text: str, phrasing: RequestPhrasing = NEUTRAL_PHRASING) -> Request | None:
    """The first request in `text`, in the domain's wording or the neutral one, tolerating surrounding
    prose, case, backticks and missing or bad arguments."""
    prefixes = dict.fromkeys((phrasing.request_prefix, NEUTRAL_PHRASING.request_prefix))
    matches = [match for prefix in prefixes if (match := _pattern(prefix).search(text)) is not None]
    if not matches:
        return None
    match = min(matches, key=lambda found: found.start())
    rest = text[match.end() :].lstrip(" `:\t")
    arguments: dict[str, JsonValue] = {}
    if rest.startswith("{"):
        try:
            value, _ = _DECODER.raw_decode(rest)
        except ValueError:
            value = None
        if isinstance(value, dict):
            arguments = value
    return Request(name=match.group("name"), arguments=arguments)


@cache
def _pattern(prefix: str) -> re.Pattern[str]:
    """A prefix followed by a tool name (possibly in backticks)."""
    return re.compile(re.escape(prefix) + r"\s*`?(?P<name>[A-Za-z_][A-Za-z0-9_]*)`?", re.IGNORECASE)


def format_report(name: str, shown: str | None, ok: bool = True) -> str:
    """The user seat's report of the action `name`: what its seat showed, and whether it failed."""
    if shown is None:
        return f"I did {name}."
    return f"I did {name}. It shows: {shown}" if ok else f"I tried {name}, {FAILED_REPORT} {shown}"


def shows_result(text: str, result: ToolResult, said: str = "") -> bool:
    """Whether a customer message shows `result`, what the action it was asked for returned: the message
    holds the whole result as the seat reads it, or a part of it (a line of a text result, a text value
    of a structured one) of at least `MIN_EVIDENCE` letters and digits, which `said` (what the agent told
    the customer) does not hold. Letters and digits are compared, case ignored, so a customer who quotes
    the result in its own punctuation shows it; one who only says it acted does not."""
    message = _letters_and_digits(text)
    heard = _letters_and_digits(said)
    whole = _letters_and_digits(result.render())
    parts = [_letters_and_digits(part) for part in _parts(result.content)]
    evidence = [whole, *(part for part in parts if len(part) >= MIN_EVIDENCE)]
    return any(piece and piece not in heard and piece in message for piece in evidence)


def _parts(content: object) -> list[str]:
    """The texts inside a result's content: each line of a text, each text value of a structure."""
    if isinstance(content, str):
        return content.splitlines()
    if isinstance(content, dict):
        return [part for value in content.values() for part in _parts(value)]
    if isinstance(content, list):
        return [part for value in content for part in _parts(value)]
    return []


def _letters_and_digits(text: str) -> str:
    """The letters and digits of `text`, case folded: what `shows_result` compares."""
    return "".join(character for character in text.casefold() if character.isalnum())


def is_resolved(text: str) -> bool:
    """Whether an agent message declares the issue resolved."""
    return RESOLVED_PHRASE.lower() in text.lower()
