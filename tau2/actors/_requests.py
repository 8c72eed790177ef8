"""The structured phrases the oracle agent and the scripted user exchange, defined once for both.

A request names one phone tool and its JSON arguments, e.g.
`Please do this on your phone: grant_app_permission {"app_name": "messaging", "permission": "sms"}`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

REQUEST_PREFIX = "Please do this on your phone:"
RESOLVED_PHRASE = "Your issue is resolved."
"""The oracle's closing sentence; the scripted user ends the call when it reads it."""
FAILED_REPORT = "but it failed:"
"""What the scripted user's report of a phone action says when the action failed."""

_REQUEST = re.compile(re.escape(REQUEST_PREFIX) + r"\s*`?(?P<name>[A-Za-z_][A-Za-z0-9_]*)`?", re.IGNORECASE)
_DECODER = json.JSONDecoder()


class Request(BaseModel):
    """One phone action the agent asks the user to perform."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict[str, JsonValue]


def format_request(name: str, arguments: dict[str, Any]) -> str:
    """The sentence asking the user seat to call `name` with `arguments`."""
    return f"{REQUEST_PREFIX} {name} {json.dumps(arguments, sort_keys=True)}"


def parse_request(text: str) -> Request | None:
    """The request in `text`, tolerating surrounding prose, backticks and missing or bad arguments."""
    match = _REQUEST.search(text)
    if match is None:
        return None
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


def format_report(name: str, shown: str | None, ok: bool = True) -> str:
    """The user seat's report of the phone action `name`: what the phone showed, and whether it failed."""
    if shown is None:
        return f"I did {name}."
    return f"I did {name}. It shows: {shown}" if ok else f"I tried {name}, {FAILED_REPORT} {shown}"


def reports_failure(text: str, name: str) -> bool:
    """Whether a customer message reports that the phone action `name` failed."""
    return text.startswith(f"I tried {name}, {FAILED_REPORT}")


def is_resolved(text: str) -> bool:
    """Whether an agent message declares the issue resolved."""
    return RESOLVED_PHRASE.lower() in text.lower()
