"""Persona assignment: τ²-bench's cyclic rotation, or every composition crossed with every persona."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tau2.generator.compose import Composition
from tau2.generator.options import PersonaAssignment
from tau2.personas import Persona


@dataclass(frozen=True, slots=True)
class Draft:
    """One task to build: a composition played by one persona."""

    composition: Composition
    persona: Persona

    @property
    def task_id(self) -> str:
        """The task's ID."""
        return self.composition.task_id(self.persona.label)

    @property
    def size(self) -> int:
        """Number of subtasks."""
        return len(self.composition.subtasks)


def assign_personas(
    pools: Sequence[Sequence[Composition]], personas: Sequence[Persona], how: PersonaAssignment
) -> list[Draft]:
    """Drafts for each intent's pool in turn, each pool stably sorted by number of subtasks.

    `rotate` gives the i-th composition of a pool persona i mod n (one persona each, as τ²-bench);
    `cross` gives every composition every persona, in the order the personas are listed.
    """
    drafts: list[Draft] = []
    for pool in pools:
        ordered = sorted(pool, key=lambda composition: len(composition.subtasks))
        for index, composition in enumerate(ordered):
            if how is PersonaAssignment.ROTATE:
                drafts.append(Draft(composition, personas[index % len(personas)]))
            else:
                drafts.extend(Draft(composition, persona) for persona in personas)
    return drafts
