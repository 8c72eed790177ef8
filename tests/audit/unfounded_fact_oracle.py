"""The unfounded-fact check as first written (every observed text rendered, flattened and searched for
numbers as it comes; one search per text), kept as the oracle the faster check must agree with."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from tau2.episode import Entry, EntryKind
from tau2.tasks import Task
from tau2.world import Side

TOKEN = re.compile(r"[A-Za-z0-9#@$.,_+%-]*\d[A-Za-z0-9#@$.,_+%-]*")
NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
NOT_LOWER_ALNUM = re.compile(r"[^a-z0-9]")
DECIMAL = re.compile(r"\d+\.\d+")
NUMBER = re.compile(r"^[$#]?\d[\d,]*(?:\.\d+)?%?$")


def fact_tokens(text: str) -> Iterator[str]:
    for match in TOKEN.finditer(text):
        token = match[0].strip(".,-_%")
        if len(NOT_ALNUM.sub("", token)) >= 3 or DECIMAL.fullmatch(token):
            yield token


def numeric(token: str) -> float | None:
    if not NUMBER.match(token):
        return None
    return float(token.strip("$#%").replace(",", ""))


class Knowledge:
    def __init__(self) -> None:
        self.flat: list[str] = []
        self.numbers: set[float] = set()

    def add(self, text: str | None) -> None:
        if not text:
            return
        self.flat.append(NOT_LOWER_ALNUM.sub("", text.lower()))
        self.numbers.update(n for n in map(numeric, fact_tokens(text)) if n is not None)

    def knows(self, token: str) -> bool:
        number = numeric(token)
        if number is not None and number in self.numbers:
            return True
        flat = NOT_LOWER_ALNUM.sub("", token.lower())
        return any(flat in text for text in self.flat)


def unfounded_fact(entries: Sequence[Entry], task: Task) -> str | None:
    known = Knowledge()
    known.add(task.user_scenario.text())
    unfounded: list[str] = []
    for entry in entries:
        if entry.seat is Side.USER and entry.kind is EntryKind.MESSAGE:
            stated = fact_tokens(entry.text or "")
            unfounded += [t for t in stated if not known.knows(t) and t not in unfounded]
        elif entry.seat is Side.AGENT and entry.kind is EntryKind.MESSAGE:
            known.add(entry.text)
        elif entry.seat is Side.USER and entry.tool_call is not None:
            known.add(str(entry.tool_call.arguments))
            if entry.result is not None:
                known.add(entry.result.render())
    if not unfounded:
        return None
    return (
        "stated " + ", ".join(repr(token) for token in unfounded[:5]) + (" …" if len(unfounded) > 5 else "")
    )
