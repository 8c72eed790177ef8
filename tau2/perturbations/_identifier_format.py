"""`identifier_format`: the world's identifiers renamed for a simulation. At a rate, the domain's data and
the task (its data patches, set-up calls, brief, ticket, reference actions and assertions) are renamed by
one bijection drawn from the simulation's stream, in the domain's own identifier formats; the reference is
replayed on the original and the renamed world side by side, so the renamed reference scores what the
original does. An agent that memorised public records, or pattern-matches their ids, meets new ones."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from pydantic import Field

from tau2.perturbations._kind import EpisodePerturbation, EpisodeStart, PerturbationSettings
from tau2.perturbations._record import PerturbationEvent
from tau2.rebrand import rename_identifiers
from tau2.tasks import Domain

RENAMED_IDENTIFIERS = "renamed_identifiers"

_SHOWN = 8
"""Renamed identifiers a simulation's record spells out (the whole renaming follows from its seed)."""


class IdentifierFormatSettings(PerturbationSettings):
    """Identifiers renamed for a share of the simulations."""

    rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """The probability that a simulation plays in a world whose identifiers are renamed (one bijection per
    simulation, drawn from its seed)."""


class IdentifierFormat(EpisodePerturbation):
    """Renames the task and the data its world starts from, when drawn."""

    def __init__(self, settings: IdentifierFormatSettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The renamed task, the renamed data its worlds start from, and the reference end state the
        database check compares with; recorded with the seed of the renaming and the ids the task meets."""
        if self.settings.rate <= 0.0 or self.rng.random() >= self.settings.rate:
            return start
        seed = self.rng.getrandbits(32)
        renamed = rename_identifiers(start.task, seed, start.data_dir)
        met = renamed.task_identifiers()
        shown = ", ".join(f"{old} → {new}" for old, new in list(met.items())[:_SHOWN])
        more = f" (+{len(met) - _SHOWN} more)" if len(met) > _SHOWN else ""
        self.events.append(
            PerturbationEvent(
                kind=self.name, effect=RENAMED_IDENTIFIERS, detail=f"seed {seed}: {shown}{more}"
            )
        )
        return dataclasses.replace(start, task=renamed.task, base=renamed.base, reference=renamed.reference)


def cannot_rename(settings: IdentifierFormatSettings, domain: Domain[Any]) -> str | None:
    """Why `domain`'s episodes cannot be renamed with `settings`: it declares no identifiers to rename."""
    if settings.rate > 0.0 and domain.identifiers is None:
        return f"domain {domain.name!r} declares no identifiers: it cannot be renamed"
    return None


def identifier_format(settings: IdentifierFormatSettings, name: str, rng: random.Random) -> IdentifierFormat:
    """The `identifier_format` effect on one episode."""
    return IdentifierFormat(settings, name, rng)
