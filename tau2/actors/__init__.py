"""Actors: the seats of a simulation (LLM, offline oracle/scripted/null/transfer, human)."""

from tau2.actors.base import (
    Actor,
    ActorSpec,
    ActorTurn,
    ContextOverflowError,
    InfrastructureError,
    SeatContext,
)

__all__ = ["Actor", "ActorSpec", "ActorTurn", "ContextOverflowError", "InfrastructureError", "SeatContext"]
