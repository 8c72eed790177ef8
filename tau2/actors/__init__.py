"""Actors: the built-in seats (LLM agent, solo agent and user; offline oracle, scripted, null, transfer;
human) and the registry that makes a seat from its spec. The actor contract itself is part of the
episode and re-exported here for convenience."""

from tau2.actors._prompts import SOLO_OPENING, agent_system_prompt, solo_system_prompt, user_system_prompt
from tau2.actors._registry import actor_kinds, make_actor, register_actor
from tau2.episode import Actor, ActorSpec, ActorTurn, SeatContext

__all__ = [
    "SOLO_OPENING",
    "Actor",
    "ActorSpec",
    "ActorTurn",
    "SeatContext",
    "actor_kinds",
    "agent_system_prompt",
    "make_actor",
    "register_actor",
    "solo_system_prompt",
    "user_system_prompt",
]
