"""Actors: the built-in seats (LLM agent, solo agent and user; offline oracle, scripted, null, transfer;
human), the offline request format the oracle and the scripted user speak (which other actors may speak
too), and the one registry of actor kinds, which also finds kinds other packages install (entry points
`actor.NAME` of the `tau2.plugins` group). The actor contract itself is part of the episode and
re-exported here."""

from tau2.actors._prompts import LATE_INFO_LEAD, render_plan
from tau2.actors._registry import (
    ActorFactory,
    ActorKind,
    ModelUse,
    actor_kind,
    actor_kinds,
    all_kinds,
    checked_kind,
    make_actor,
    pairing_warning,
    register_actor,
)
from tau2.actors._requests import RESOLVED_PHRASE, Request, format_request, is_resolved, parse_request
from tau2.episode import Actor, ActorSpec, ActorTurn, SeatContext

__all__ = [
    "LATE_INFO_LEAD",
    "RESOLVED_PHRASE",
    "Actor",
    "ActorFactory",
    "ActorKind",
    "ActorSpec",
    "ActorTurn",
    "ModelUse",
    "Request",
    "SeatContext",
    "actor_kind",
    "actor_kinds",
    "all_kinds",
    "checked_kind",
    "format_request",
    "is_resolved",
    "make_actor",
    "pairing_warning",
    "parse_request",
    "register_actor",
    "render_plan",
]
