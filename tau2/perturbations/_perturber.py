"""The perturbations of one episode together: each kind's effect built with its own random stream, seeded
from the simulation's seed and the kind's name (so a (task, trial) draws the same in every arm, and adding
one kind never shifts another's draws), applied at the episode's hooks, and what they did recorded."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence

from tau2.llm import Usage
from tau2.perturbations._kind import (
    CallAttempt,
    EpisodePerturbation,
    EpisodeStart,
    Interception,
    PerturbationSettings,
    Step,
)
from tau2.perturbations._record import PerturbationEvent, PerturbationRecord
from tau2.perturbations._registry import get_perturbation
from tau2.world import Side


def perturbation_rng(seed: int | None, name: str) -> random.Random:
    """The random stream of perturbation `name` in the simulation of `seed` (an unseeded episode draws as
    seed 0 does)."""
    digest = hashlib.sha256(f"{0 if seed is None else seed}\x00perturbation\x00{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class Perturber:
    """The configured perturbations of one episode, in the configuration's order: the first to intercept
    a call decides it."""

    def __init__(self, effects: Sequence[EpisodePerturbation]) -> None:
        self._effects = list(effects)
        self._prepared: tuple[EpisodeStart, EpisodeStart] | None = None

    @classmethod
    def of(cls, settings: Mapping[str, PerturbationSettings], seed: int | None) -> Perturber:
        """The perturbations `settings` configure (by kind name), for the simulation of `seed` (settings
        kept as recorded are read by their kind now)."""
        effects = []
        for name, given in settings.items():
            kind = get_perturbation(name)
            if not isinstance(given, kind.settings):
                given = kind.settings.model_validate(given.model_dump())
            effects.append(kind.episode(given, perturbation_rng(seed, name)))
        return cls(effects)

    async def prepare(self, start: EpisodeStart) -> None:
        """Run every kind's hook before the episode of `start` now, in order, awaiting those that wait on
        an answer (`abefore_episode`: a brief paraphrased by a model), so that `before_episode` of the same
        start then returns what they made without waiting on anything. A kind that raises (a paraphrase
        refused: `InfrastructureError`) raises here, before any episode is built."""
        prepared = start
        for effect in self._effects:
            prepared = await effect.abefore_episode(prepared)
        self._prepared = (start, prepared)

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The task and data the episode is built from, after every kind's hook, in order: what `prepare`
        made of `start` when it was prepared, or else every kind's synchronous hook now."""
        if self._prepared is not None:
            given, prepared = self._prepared
            if given != start:
                raise ValueError("the perturbations were prepared for the episode of another start")
            return prepared
        for effect in self._effects:
            start = effect.before_episode(start)
        return start

    @property
    def usage(self) -> dict[Side, Usage]:
        """What the kinds' model calls cost so far (a paraphrased brief), by the seat they served."""
        spent: dict[Side, Usage] = {}
        for effect in self._effects:
            for event in effect.events:
                if event.usage is not None and event.seat is not None:
                    previous = spent.get(event.seat)
                    spent[event.seat] = event.usage if previous is None else previous + event.usage
        return spent

    def intercept(self, attempt: CallAttempt, entry: int) -> Interception | None:
        """What becomes of a call about to reach the world whose `tool_call` entry will be `entry`: the
        first kind's interception (recorded), or None to let it through."""
        for effect in self._effects:
            caught = effect.intercept(attempt)
            if caught is not None:
                effect.events.append(
                    PerturbationEvent(
                        kind=effect.name,
                        effect=caught.effect,
                        seat=attempt.seat,
                        tool=attempt.tool.name,
                        entry=entry,
                        detail=caught.detail,
                        repeat=caught.repeat,
                    )
                )
                return caught
        return None

    def record(self, steps: Sequence[Step]) -> PerturbationRecord | None:
        """What the perturbations did in the finished episode of `steps` (in the order they happened, what
        they changed before it first), and which the agent noticed; None when they did nothing."""
        events = [event for effect in self._effects for event in effect.events]
        events.sort(
            key=lambda event: -1 if event.entry is None else event.entry
        )  # in the order they happened
        if not events:
            return None
        noticed = [
            effect.name for effect in self._effects if effect.events and effect.noticed(steps, effect.events)
        ]
        return PerturbationRecord(events=events, noticed=noticed)
