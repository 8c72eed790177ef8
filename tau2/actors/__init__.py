"""Actors: the seats of a simulation (LLM, offline oracle/scripted/null/transfer, human)."""

from tau2.actors.base import Actor, ActorTurn, SeatContext

__all__ = ["Actor", "ActorTurn", "SeatContext"]
