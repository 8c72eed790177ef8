"""`instruction_variant`: the customer's brief told by a named variant (`terse`, `verbose`,
`facts_out_of_order`, `fact_late`) drawn from the simulation's stream: the same facts, framed, reordered or
one of them given only when asked. The variants themselves are `tau2.tasks.vary_brief`."""

from __future__ import annotations

import dataclasses
import random

from tau2.perturbations._kind import EpisodePerturbation, EpisodeStart, PerturbationSettings
from tau2.perturbations._record import PerturbationEvent
from tau2.tasks import BriefVariant, vary_brief
from tau2.world import Side

VARIED_BRIEF = "varied_brief"


class InstructionVariantSettings(PerturbationSettings):
    """The variant every simulation's brief is told in (None: the brief as written)."""

    variant: BriefVariant | None = None


class InstructionVariant(EpisodePerturbation):
    """Rewrites the customer's brief by the configured variant, seeded per simulation."""

    def __init__(self, settings: InstructionVariantSettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The task with its brief varied; recorded with the variant, its seed and the fact held back."""
        if self.settings.variant is None:
            return start
        seed = self.rng.getrandbits(32)
        varied = vary_brief(start.task.user_scenario.instructions, self.settings.variant, seed)
        late = f"; held back: {varied.held_back}" if varied.held_back else ""
        self.events.append(
            PerturbationEvent(
                kind=self.name,
                effect=VARIED_BRIEF,
                seat=Side.USER,
                detail=f"{varied.variant} (seed {seed}){late}",
            )
        )
        return dataclasses.replace(start, task=varied.apply(start.task))


def instruction_variant(
    settings: InstructionVariantSettings, name: str, rng: random.Random
) -> InstructionVariant:
    """The `instruction_variant` effect on one episode."""
    return InstructionVariant(settings, name, rng)
