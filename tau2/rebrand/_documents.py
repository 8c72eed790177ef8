"""The documents and texts a renaming reads: JSON passed as text, every string of a document, what the
sources already write, and a task's data documents and free texts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from tau2.rebrand._paths import Path
from tau2.rebrand._text import RUN
from tau2.tasks import EnvCall, Task


def parsed_json(text: str) -> dict[str, Any] | list[Any] | None:
    """The object or array a string holds as JSON text (tool arguments passed as text), else None."""
    if not text.startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def dumped_like(original: str, value: Any) -> str:
    """`value` as JSON text in the style of `original` (compact or spaced separators, escaped or not)."""
    compact = '": ' not in original and '":' in original
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(value, separators=separators, ensure_ascii=original.isascii())


def strings(value: Any) -> Iterator[str]:
    """Every string of a document: keys and values, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class Vocabulary:
    """Everything the sources write, to tell whether a new identifier or name would be mistaken for text
    already there: their words, and (looked at only when all of a candidate's words occur) their text."""

    def __init__(self, texts: Iterable[str]) -> None:
        kept = [text for text in texts if text]
        self.words: set[str] = {word for text in kept for word in RUN.findall(text)}
        self._texts = kept
        self._joined: str | None = None

    def occurs(self, candidate: str) -> bool:
        """Whether `candidate` may already stand somewhere in the sources."""
        words = RUN.findall(candidate)
        if not all(word in self.words for word in words):
            return False
        if self._joined is None:
            self._joined = "\n".join(self._texts)
        return candidate in self._joined


def task_documents_of(task: Task) -> list[tuple[Any, Path]]:
    """A task's data documents with the path each is rooted at: its data patches (at the top of the
    state), each call's arguments, and its metadata."""
    documents: list[tuple[Any, Path]] = []
    if task.initial_data is not None:
        documents += [
            (patch, ()) for patch in (task.initial_data.agent_data, task.initial_data.user_data) if patch
        ]
    calls: list[EnvCall] = [*task.initialization, *task.evaluation.assertions, *task.evaluation.solution]
    documents += [(call.arguments, ()) for call in calls]
    documents.append((task.metadata, ()))
    return documents


def task_texts(tasks: Iterable[Task]) -> Iterator[str]:
    """Every free text of the tasks: purpose, brief, persona, ticket, expected outputs, messages."""
    for task in tasks:
        scenario = task.user_scenario
        yield scenario.text()
        for text in (task.purpose, task.ticket):
            if text:
                yield text
        evaluation = task.evaluation
        yield from evaluation.communicate_info or []
        yield from evaluation.nl_assertions or []
        yield from (check.message for check in evaluation.assertions if check.message)
        yield from (step.info for step in evaluation.solution if step.info)
