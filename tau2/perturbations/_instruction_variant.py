"""`instruction_variant`: the customer's brief told by a named variant (`terse`, `verbose`,
`facts_out_of_order`, `fact_late`) drawn from the simulation's stream: the same facts, framed, reordered or
one of them given only when asked; or, with `variant = "paraphrase"` and a `model`, each part of the brief
in other words, written by that model (asked through the model cache in scope) and checked to keep every
value. The named variants themselves are `tau2.tasks.vary_brief`; the paraphrase is `paraphrase_brief`."""

from __future__ import annotations

import dataclasses
import random
from typing import Literal

from pydantic import Field, field_validator, model_validator

from tau2.errors import UserInputError
from tau2.llm import ModelSpec, Usage
from tau2.perturbations._kind import EpisodePerturbation, EpisodeStart, PerturbationSettings
from tau2.perturbations._paraphrase import paraphrase_brief
from tau2.perturbations._record import PerturbationEvent
from tau2.tasks import BriefVariant, VariedBrief, vary_brief
from tau2.world import Side

VARIED_BRIEF = "varied_brief"

PARAPHRASE = "paraphrase"
"""The variant written by a model (`InstructionVariantSettings.model`) rather than by a rule."""


class InstructionVariantSettings(PerturbationSettings):
    """The variant every simulation's brief is told in (None: the brief as written), and for
    `paraphrase`, the model that writes it."""

    variant: BriefVariant | Literal["paraphrase"] | None = None
    model: ModelSpec | None = Field(default=None, exclude_if=lambda model: model is None)
    """`paraphrase` only: the model paraphrasing the brief, written as a seat's or the judge's model is (a
    name, or a table with `name`, `api_base`, `args`, …); its secrets are never written to the run."""

    @field_validator("variant", mode="before")
    @classmethod
    def _known(cls, variant: object) -> object:
        """A variant other than the named ones, refused naming them all."""
        names = [*BriefVariant, PARAPHRASE]
        if variant is not None and variant not in names:
            raise ValueError(f"unknown variant {variant!r} (variants: {', '.join(names)})")
        return variant

    @model_validator(mode="after")
    def _model_for_paraphrase(self) -> InstructionVariantSettings:
        """A paraphrase needs a model, and only a paraphrase takes one."""
        if self.variant == PARAPHRASE and self.model is None:
            raise ValueError('variant "paraphrase" needs a model: give model = "provider/name" or a table')
        if self.variant != PARAPHRASE and self.model is not None:
            raise ValueError('model is the paraphrase\'s: give it only with variant = "paraphrase"')
        return self


class InstructionVariant(EpisodePerturbation):
    """Rewrites the customer's brief by the configured variant, seeded per simulation."""

    def __init__(self, settings: InstructionVariantSettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The task with its brief varied; recorded with the variant, its seed and the fact held back. A
        paraphrase waits on a model, so it is refused here: only `abefore_episode` writes one."""
        if self.settings.variant is None:
            return start
        if self.settings.variant == PARAPHRASE:
            raise UserInputError(
                f"perturbations.{self.name}: a paraphrase waits on a model, which an episode built "
                "without awaiting cannot do: build it with `await Episode.create(...)` (as runs, "
                "run_episode and the stepper do)"
            )
        seed = self.rng.getrandbits(32)
        varied = vary_brief(start.task.user_scenario.instructions, self.settings.variant, seed)
        late = f"; held back: {varied.held_back}" if varied.held_back else ""
        return self._told(start, varied, f"{varied.variant} (seed {seed}){late}")

    async def abefore_episode(self, start: EpisodeStart) -> EpisodeStart:
        """`before_episode`, and the paraphrase: the brief rewritten by the model with a seed drawn from
        the simulation's stream (so every arm asks the same request, which the model cache in scope
        answers again), recorded with the seed, the model's name and what the call cost. A paraphrase
        the check refuses raises `InfrastructureError` (the simulation failed, not the agent)."""
        model = self.settings.model
        if self.settings.variant != PARAPHRASE or model is None:
            return self.before_episode(start)
        seed = self.rng.getrandbits(32)
        varied, usage = await paraphrase_brief(start.task.user_scenario.instructions, model, seed)
        return self._told(start, varied, f"{PARAPHRASE} (seed {seed}) by {model.name}", usage)

    def _told(
        self, start: EpisodeStart, varied: VariedBrief, detail: str, usage: Usage | None = None
    ) -> EpisodeStart:
        """`start` with the customer's brief told as `varied`, recorded with `detail` (and what the model
        call that wrote it cost)."""
        event = PerturbationEvent(
            kind=self.name, effect=VARIED_BRIEF, seat=Side.USER, detail=detail, usage=usage
        )
        self.events.append(event)
        return dataclasses.replace(start, task=varied.apply(start.task))


def instruction_variant(
    settings: InstructionVariantSettings, name: str, rng: random.Random
) -> InstructionVariant:
    """The `instruction_variant` effect on one episode."""
    return InstructionVariant(settings, name, rng)
