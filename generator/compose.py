"""Composition: every valid choice of at most one subtask per group of an intent, in τ²-bench's order."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from itertools import product

from tau2.tasks import Catalog, Intent, Subtask


@dataclass(frozen=True, slots=True)
class Composition:
    """An intent and the subtasks it composes, in the intent's group order."""

    intent: str
    subtasks: tuple[str, ...]

    @property
    def sorted_subtasks(self) -> tuple[str, ...]:
        """Subtask names in code-point order, as task IDs list them."""
        return tuple(sorted(self.subtasks))

    def task_id(self, persona_label: str) -> str:
        """The τ²-bench task ID `[<intent>]<sub1>|<sub2>|…[PERSONA:<label>]`."""
        return f"[{self.intent}]{'|'.join(self.sorted_subtasks)}[PERSONA:{persona_label}]"


def offered_subtasks(catalog: Catalog, include_optional: Collection[str]) -> list[Subtask]:
    """The catalog's subtasks less the optional ones not asked for, in declaration order."""
    return [
        subtask for subtask in catalog.subtasks if not subtask.optional or subtask.name in include_optional
    ]


def compose(intent: Intent, offered: list[Subtask]) -> list[Composition]:
    """Valid compositions: the product over the intent's groups, each offering its variants that may join
    the intent, then "none" (the last group varies fastest)."""
    choices = [
        [*(s for s in offered if s.group == group and s.offered_to(intent.name)), None]
        for group in intent.groups
    ]
    compositions = []
    for picked in product(*choices):
        chosen = [subtask for subtask in picked if subtask is not None]
        if chosen and intent.is_valid({subtask.group for subtask in chosen}):
            compositions.append(Composition(intent.name, tuple(subtask.name for subtask in chosen)))
    return compositions


def is_transfer(catalog: Catalog, composition: Composition) -> bool:
    """Whether the composition holds an unfixable subtask, so its correct outcome is a transfer."""
    return any(catalog.subtask(name).unfixable for name in composition.subtasks)
