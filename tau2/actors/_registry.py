"""Actor kinds by name and seat: the built-ins plus any kind a user registers.

LLM actors are imported only when an `llm` actor is made, so offline runs never load litellm.
"""

from __future__ import annotations

from collections.abc import Callable

from tau2.episode import Actor, ActorSpec, Mode
from tau2.errors import UserInputError
from tau2.llm import ModelSpec
from tau2.world import Side

ActorFactory = Callable[[ActorSpec, Mode], Actor]
"""Builds an actor for one seat from its spec and the episode mode."""

_factories: dict[tuple[str, Side], ActorFactory] = {}


def register_actor(kind: str, seat: Side, factory: ActorFactory) -> None:
    """Make `kind` available for `seat` (a later registration of the same kind and seat replaces it)."""
    _factories[(kind, Side(seat))] = factory


def actor_kinds(seat: Side) -> list[str]:
    """The kinds that can fill `seat`, sorted."""
    return sorted(kind for kind, side in _factories if side is seat)


def make_actor(spec: ActorSpec, seat: Side, mode: Mode = Mode.INTERACTIVE) -> Actor:
    """Build the actor `spec` describes for `seat`; an unknown kind or wrong seat is a `UserInputError`."""
    factory = _factories.get((spec.kind, seat))
    if factory is None:
        known = f"{seat.value} kinds: {', '.join(actor_kinds(seat))}"
        other = seat.other
        if (spec.kind, other) in _factories:
            raise UserInputError(f"actor kind {spec.kind!r} is for the {other.value} seat ({known})")
        raise UserInputError(f"unknown {seat.value} kind {spec.kind!r} ({known})")
    return factory(spec, mode)


def _oracle(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._oracle import OracleAgent

    return OracleAgent(spec)


def _null(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._null import NullAgent

    return NullAgent(spec)


def _transfer(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._transfer import TransferAgent

    return TransferAgent(spec)


def _scripted(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._scripted import ScriptedUser

    return ScriptedUser(spec)


def _human(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._human import HumanActor

    return HumanActor(spec)


def _llm_agent(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._llm import LLMAgent, SoloAgent

    model = _model_of(spec)
    return SoloAgent(model) if mode is Mode.SOLO else LLMAgent(model)


def _llm_user(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._llm import LLMUser

    return LLMUser(_model_of(spec))


register_actor("oracle", Side.AGENT, _oracle)
register_actor("null", Side.AGENT, _null)
register_actor("transfer", Side.AGENT, _transfer)
register_actor("llm", Side.AGENT, _llm_agent)
register_actor("human", Side.AGENT, _human)
register_actor("scripted", Side.USER, _scripted)
register_actor("human", Side.USER, _human)
register_actor("llm", Side.USER, _llm_user)


def _model_of(spec: ActorSpec) -> ModelSpec:
    if spec.model is None:
        raise UserInputError(f"actor kind {spec.kind!r} needs a model")
    return spec.model
