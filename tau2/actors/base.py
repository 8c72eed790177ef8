"""The actor contract: one seat of the simulation, driven turn by turn by the orchestrator."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from tau2.modes import EpisodeConfig
from tau2.task import Task
from tau2.tools import Side
from tau2.trajectory import Entry, ToolCall, Usage


class SeatContext(BaseModel):
    """What an actor is given when its episode starts.

    `task` is the whole task so that offline oracle actors can follow its solution; LLM actors must
    build their prompts only from the parts their seat may know (policy, scenario, ticket, plan).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    seat: Side
    task: Task
    config: EpisodeConfig
    sides: tuple[Side, ...]
    """Toolsets this seat holds (both in solo mode)."""
    tool_schemas: list[dict[str, Any]]
    policy: str | None = None
    persona_text: str | None = None
    seed: int | None = None


class ActorTurn(BaseModel):
    """One turn of an actor: a message to the other seat, or tool calls, or a stop; or, when the
    actor's output could not be understood, an error the actor will be shown so it can correct it."""

    model_config = ConfigDict(frozen=True)

    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    stop: bool = False
    """The user ends the call (interactive) — the orchestrator owns termination."""
    error: str | None = None
    usage: Usage | None = None


@runtime_checkable
class Actor(Protocol):
    """One seat. `act` receives the entries visible to it since its last turn."""

    async def start(self, context: SeatContext) -> None:
        """Prepare for a new episode."""
        ...

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Decide the next turn given what happened since the last one."""
        ...
