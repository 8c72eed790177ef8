"""The actor contract: one seat of the simulation, driven turn by turn by the orchestrator."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tau2.episode._config import EpisodeConfig
from tau2.episode._trajectory import Entry, RejectedReply, ToolCall
from tau2.llm import ModelSpec, Usage
from tau2.tasks import Task
from tau2.world import NEUTRAL_PHRASING, RequestPhrasing, Side, WorldView


class ActorSpec(BaseModel):
    """How to build an actor: a registered kind (`llm`, `oracle`, `scripted`, …) and, for kinds that
    take one, the model it talks to. Printed in run manifests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = "llm"
    """Kind of the seat: llm (needs a model), oracle, null, transfer, scripted, human, an installed kind, or
    module:factory."""
    model: ModelSpec | None = None
    """The model of a kind that talks to one (a name alone, or its settings); nothing is chosen for you."""
    text_tool_calls: bool = False
    """Read a tool call the model writes as JSON in its message (bare, fenced or in <tool_call> tags) as
    that call: a compatibility aid for servers without a tool-call parser. Left out of manifests while
    off."""

    @model_validator(mode="before")
    @classmethod
    def _a_kind_alone(cls, data: Any) -> Any:
        """A seat given as a string is its kind (`user = "scripted"`)."""
        return {"kind": data} if isinstance(data, str) else data

    @model_serializer(mode="wrap")
    def _omit_off_options(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The spec's fields, without `text_tool_calls` while it is off."""
        data: dict[str, Any] = handler(self)
        if not self.text_tool_calls:
            data.pop("text_tool_calls", None)
        return data

    def label(self) -> str:
        """Short printable form, e.g. `llm:gpt-4o-mini` or `oracle`."""
        return f"{self.kind}:{self.model.name}" if self.model else self.kind


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
    transfer_tool: str | None = None
    """The agent tool that hands the customer to a human (agent seat only; None if the domain has none)."""
    phrasing: RequestPhrasing = NEUTRAL_PHRASING
    """How the domain words the offline request format, for the oracle agent and the scripted user."""

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
    rejected: RejectedReply | None = None
    """With `error`: the reply as the model wrote it, when it could not be made into a turn."""
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


@runtime_checkable
class WorldObserver(Protocol):
    """An actor that judges the world itself rather than what it is told (the oracle agent checks a
    customer's step by its effect): when its episode starts, after `start`, it is handed a read-only view
    of the episode's world. Reference actors only; a model seat sees what its seat observes."""

    def observe_world(self, view: WorldView) -> None:
        """Keep `view` for the episode that just started."""
        ...


def hand_world_view(actor: object, view: WorldView) -> None:
    """Give `view` to `actor` if it judges the world itself (for actors that wrap another one)."""
    if isinstance(actor, WorldObserver):
        actor.observe_world(view)
