"""The offline request format the oracle agent and the scripted user exchange, defined once for both.

A request is a prefix, the name of one of the customer seat's tools and its arguments as one JSON object:
`Please do this on your side: plug_in {}`. The prefix is the domain's `RequestPhrasing` (telecom says "on
your phone"); the neutral prefix is understood in every domain.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.world import NEUTRAL_PHRASING, RequestPhrasing

RESOLVED_PHRASE = "Your issue is resolved."
"""The oracle's closing sentence; the scripted user ends the call when it reads it."""
FAILED_REPORT = "but it failed:"
"""What the scripted user's report of an action says when the action failed."""

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


def reports_failure(text: str, name: str) -> bool:
    """Whether a customer message reports that the action `name` failed."""
    return text.startswith(f"I tried {name}, {FAILED_REPORT}")


def is_resolved(text: str) -> bool:
    """Whether an agent message declares the issue resolved."""
    return RESOLVED_PHRASE.lower() in text.lower()
