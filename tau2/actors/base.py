"""The actor contract: one seat of the simulation, driven turn by turn by the orchestrator."""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from tau2.modes import EpisodeConfig
from tau2.task import Task
from tau2.tools import Side
from tau2.trajectory import Entry, ToolCall, Usage


class ActorSpec(BaseModel):
    """How to build an actor: a registered kind (`llm`, `oracle`, `scripted`, …) and, for models,
    which model, where, and with which sampling arguments. Printed in run manifests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    model: str | None = None
    api_base: str | None = None
    model_args: dict[str, JsonValue] = Field(default_factory=dict)
    """Passed through to the provider (temperature, top_p, max_tokens, …)."""
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=4, ge=0)
    transport: Literal["auto", "native", "litellm"] = "auto"
    """How model calls travel: litellm, tau2's own client for OpenAI-compatible servers, or `auto`
    (native for OpenAI-style models with an API base; see `tau2.llm.transports`)."""

    def label(self) -> str:
        """Short printable form, e.g. `llm:gpt-4o-mini` or `oracle`."""
        return f"{self.kind}:{self.model}" if self.model else self.kind


class InfrastructureError(Exception):
    """The model provider failed after retries; the episode ends without judging the actor."""


class ContextOverflowError(Exception):
    """The conversation no longer fits the model's context window; not retried."""


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

    @property
    def seed(self) -> int | None:
        """The episode's seed, for actors that sample."""
        return self.config.seed


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
