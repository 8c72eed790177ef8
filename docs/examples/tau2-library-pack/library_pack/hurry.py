"""A perturbation kind the pack installs (`perturbation.hurried_member`): at a rate, the member is in a hurry
and says so, a condition agents that skip their checks under pressure do worse in. Its effect acts before
the episode, on the brief alone; the world and the reference are untouched."""

from __future__ import annotations

import dataclasses
import random

from pydantic import Field

from tau2.perturbations import (
    EpisodePerturbation,
    EpisodeStart,
    PerturbationEvent,
    PerturbationKind,
    PerturbationSettings,
)
from tau2.tasks import UserInstructions
from tau2.world import Side

HURRY = "You are in a hurry and say so in your first message: you have a train to catch in ten minutes."
"""What a hurried member's brief adds to how it acts."""


class HurrySettings(PerturbationSettings):
    """How often the member is in a hurry."""

    rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """The probability that a simulation's member is in a hurry."""


class Hurry(EpisodePerturbation):
    """Adds the hurry to the member's brief, when drawn."""

    def __init__(self, settings: HurrySettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The task with a hurried member, at the rate set."""
        if self.settings.rate <= 0.0 or self.rng.random() >= self.settings.rate:
            return start
        scenario = start.task.user_scenario
        brief = scenario.instructions
        if isinstance(brief, UserInstructions):
            hurried: UserInstructions | str = brief.model_copy(
                update={"task_instructions": f"{brief.task_instructions} {HURRY}"}
            )
        else:
            hurried = f"{brief} {HURRY}"
        task = start.task.model_copy(
            update={"user_scenario": scenario.model_copy(update={"instructions": hurried})}
        )
        self.events.append(PerturbationEvent(kind=self.name, effect="hurried", seat=Side.USER))
        return dataclasses.replace(start, task=task)


HURRIED_MEMBER = PerturbationKind(
    "hurried_member",
    HurrySettings,
    lambda settings, name, rng: Hurry(settings, name, rng),
    "the member is in a hurry and says so",
)
"""The kind, as its entry point names it."""
