"""`unreliable_user`: a customer who says it acted without acting, and one who forgets part of its brief.
Its calls that would change the world are dropped at a rate — the customer is answered what the call would
have returned (worked out on a throwaway copy of the world), so its next message reads as if it had acted,
while the world stays as it was — and, at a rate, one fact of its brief is withheld from it. Applied by the
episode around whatever plays the customer (a model, a script, a person), so the rate is controlled."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Sequence

from pydantic import Field

from tau2.perturbations._kind import (
    CallAttempt,
    EpisodePerturbation,
    EpisodeStart,
    Interception,
    PerturbationSettings,
    Step,
)
from tau2.perturbations._record import PerturbationEvent
from tau2.tasks import Task, UserInstructions
from tau2.world import Side, ToolKind, World

DROPPED_CALL = "dropped_call"
WITHHELD_FACT = "withheld_fact"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
"""Where one fact of a brief's known information ends: after a sentence, or at a line break."""


class UnreliableUserSettings(PerturbationSettings):
    """A customer whose actions do not always happen and whose brief may miss a fact."""

    drop_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """The probability that a customer's call of a tool that writes is dropped (each drawn
    independently): the world is left unchanged while the customer is answered as if it had acted."""
    withhold_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """The probability that one fact of the customer's known information (a sentence of it, chosen at
    random) is withheld from its brief for the simulation."""


class UnreliableUser(EpisodePerturbation):
    """Withholds a fact of the brief before the episode, then drops the customer's writes as drawn."""

    def __init__(self, settings: UnreliableUserSettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """Withhold one fact of the brief's known information, when drawn (a brief without structured
        known information has no fact to withhold: nothing is drawn)."""
        if self.settings.withhold_rate <= 0.0:
            return start
        facts = known_facts(start.task)
        if not facts or self.rng.random() >= self.settings.withhold_rate:
            return start
        place = self.rng.randrange(len(facts))
        self.events.append(
            PerturbationEvent(kind=self.name, effect=WITHHELD_FACT, seat=Side.USER, detail=facts[place])
        )
        return dataclasses.replace(start, task=without_fact(start.task, facts, place))

    def intercept(self, attempt: CallAttempt) -> Interception | None:
        """Drop a customer's write as drawn: it runs on a copy of the world, and the customer is told what
        it returned there."""
        if (
            self.settings.drop_rate <= 0.0
            or attempt.seat is not Side.USER
            or attempt.tool.kind is not ToolKind.WRITE
            or self.rng.random() >= self.settings.drop_rate
        ):
            return None
        world = attempt.world
        scratch = World(world.domain, type(world.state).model_validate_json(world.snapshot()))
        result = scratch.call(attempt.tool.side, attempt.tool.name, attempt.arguments)
        return Interception(result=result, effect=DROPPED_CALL)

    def noticed(self, steps: Sequence[Step], events: Sequence[PerturbationEvent]) -> bool:
        """The agent noticed when, after the first dropped call, the state was looked at again at its
        instance: it called a tool that reads, or it spoke and the customer then called a tool that reads
        or called the dropped tool again."""
        dropped = [event for event in events if event.effect == DROPPED_CALL and event.entry is not None]
        if not dropped:
            return False
        first = min(event.entry for event in dropped if event.entry is not None)
        tools = {event.tool for event in dropped}
        agent_spoke = False
        for step in steps:
            if step.index <= first:
                continue
            if step.seat is Side.AGENT:
                if step.tool is None:
                    agent_spoke = True
                elif step.reads:
                    return True
            elif step.tool is not None and agent_spoke and (step.reads or step.tool in tools):
                return True
        return False


def known_facts(task: Task) -> list[str]:
    """The facts of a task's structured known information: its sentences (or lines), in order."""
    instructions = task.user_scenario.instructions
    if not isinstance(instructions, UserInstructions) or not instructions.known_info:
        return []
    return [part.strip() for part in _SENTENCE_END.split(instructions.known_info) if part.strip()]


def without_fact(task: Task, facts: list[str], place: int) -> Task:
    """`task` with the fact at `place` of its known information left out."""
    instructions = task.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    kept = " ".join(fact for number, fact in enumerate(facts) if number != place) or None
    scenario = task.user_scenario.model_copy(
        update={"instructions": instructions.model_copy(update={"known_info": kept})}
    )
    return task.model_copy(update={"user_scenario": scenario})


def unreliable_user(settings: UnreliableUserSettings, name: str, rng: random.Random) -> UnreliableUser:
    """The `unreliable_user` effect on one episode."""
    return UnreliableUser(settings, name, rng)
