"""Slowed actor kinds for tests: any kind, waiting before every turn, so that a run of fast offline actors
can be caught mid-flight (killed, interrupted, raced). `tau2.testing:slowed_oracle` is the oracle kind
slowed, and so on for every kind; the wait is read from `TAU2_TEST_TURN_DELAY_S` (seconds; unset: none)
when the actor is built, so it reaches worker processes too."""

from __future__ import annotations

import asyncio
import os
from typing import Final

from tau2.actors import Actor, ActorFactory, ActorKind, ActorSpec, actor_kind
from tau2.episode import ActorTurn, Entry, Mode, SeatContext, hand_world_view
from tau2.world import Side, WorldView

DELAY_VARIABLE: Final = "TAU2_TEST_TURN_DELAY_S"
"""The environment variable holding the seconds a slowed actor waits before each turn."""
PREFIX: Final = "slowed_"
"""What names a slowed kind among `tau2.testing`'s attributes: `slowed_<kind>`."""
MODULE: Final = "tau2.testing"


class Slowed:
    """An actor that waits before every turn, then lets the actor it wraps take it."""

    def __init__(self, actor: Actor, delay_s: float) -> None:
        self._actor = actor
        self._delay_s = delay_s

    async def start(self, context: SeatContext) -> None:
        """Start the wrapped actor."""
        await self._actor.start(context)

    def observe_world(self, view: WorldView) -> None:
        """Hand the wrapped actor the world's view, if it judges the world itself."""
        hand_world_view(self._actor, view)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Wait, then let the wrapped actor take its turn."""
        await asyncio.sleep(self._delay_s)
        return await self._actor.act(observation)


def slowed_name(kind: str) -> str:
    """The kind name of `kind` slowed, e.g. `tau2.testing:slowed_oracle`."""
    return f"{MODULE}:{PREFIX}{kind}"


def slowed_kind(name: str) -> ActorKind:
    """The kind called `name`, slowed: same seats, model use and prompts, each actor wrapped in `Slowed`;
    it pairs with what the kind pairs with, slowed or not."""
    inner = actor_kind(name)

    def slow(seat: Side) -> ActorFactory:
        def build(spec: ActorSpec, mode: Mode) -> Actor:
            actor = inner.factories[seat](spec.model_copy(update={"kind": name}), mode)
            return Slowed(actor, float(os.environ.get(DELAY_VARIABLE) or 0))

        return build

    pairs = inner.pairs_with
    return ActorKind(
        slowed_name(name),
        {seat: slow(seat) for seat in inner.factories},
        inner.model,
        inner.prompt_template,
        f"{inner.description} (slowed, for tests)",
        None if pairs is None else pairs | {slowed_name(kind) for kind in pairs},
    )
