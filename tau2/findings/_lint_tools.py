"""Lint check that no text tells a seat to use a tool it does not hold: the agent's policy (in
interactive mode the customer's phone tools are not the agent's) and the customer's instructions.

A text *tells its reader to use* a tool when a sentence names it after a directive (use, call, run,
invoke, execute, "the results of") and before naming the other party (asking the customer to do it is
how an agent is meant to reach the phone). A name also counts when the text calls it a tool ("the
`get_status_bar` tool call") although no seat holds a tool of that name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tau2.world import Side, WorldRules

POLICY_NAMES_FOREIGN_TOOL = "policy_names_foreign_tool"

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|\|")
_DIRECTIVE = re.compile(r"\b(?:use|using|call|run|invoke|execute|results? of)\b", re.IGNORECASE)
_OTHER_PARTY = {
    Side.AGENT: re.compile(r"\b(?:user|customer|caller|client|them|they|their)s?\b", re.IGNORECASE),
    Side.USER: re.compile(r"\b(?:agent|representative|assistant|them|they)s?\b", re.IGNORECASE),
}
_NAME = re.compile(r"`(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
_CALLED_A_TOOL = re.compile(r"\s*(?:tool|function)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Reader:
    """The seat reading a text, and the tools it holds."""

    seat: Side
    holds: frozenset[str]


def tool_owners(domain: WorldRules[Any]) -> dict[str, Side]:
    """Every tool a seat of the domain can reach, by name: its tool table and its discoverable tools."""
    hidden = dict(domain.discoverable_tools()) if domain.discoverable_tools is not None else {}
    return {**hidden, **{tool.name: tool.side for tool in domain.tools.tools()}}


def seat_reader(seat: Side, domain: WorldRules[Any], offered: set[str] | None = None) -> Reader:
    """`seat` holding its tools of the domain (the tool table's limited to `offered` when given)."""
    table = {tool.name for tool in domain.tools.tools(seat)}
    hidden = domain.discoverable_tools() if domain.discoverable_tools is not None else {}
    held = (table if offered is None else table & offered) | {
        name for name, side in hidden.items() if side is seat
    }
    return Reader(seat, frozenset(held))


def foreign_tools(text: str, reader: Reader, owners: Mapping[str, Side]) -> Iterator[str]:
    """Each tool `text` tells `reader` to use without holding it, as one phrase (each name once); `owners`
    maps every tool of the domain to its seat."""
    reported: set[str] = set()
    for sentence in _SENTENCE.split(text):
        for match in _NAME.finditer(sentence):
            name = match[1] or match[2]
            if name in reader.holds or name in reported:
                continue
            before = sentence[: match.start()]
            owner = owners.get(name)
            if owner is not None:
                told = (
                    _DIRECTIVE.search(before) is not None and _OTHER_PARTY[reader.seat].search(before) is None
                )
                if told:
                    reported.add(name)
                    yield f"the {reader.seat.value} is told to use {name}, a tool of the {owner.value} seat"
            elif _CALLED_A_TOOL.match(sentence, match.end()) and _DIRECTIVE.search(before) is not None:
                reported.add(name)
                yield f"the {reader.seat.value} is told to use a tool {name}, which no seat holds"
