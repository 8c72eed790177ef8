"""Seats and models made ready to run: each seat's kind checked against what it accepts, each model's
transport resolved (`auto` becomes the transport it chose, which the manifest records)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.actors import checked_kind
from tau2.config import ActorSpec, ConfigLayer, ModelSpec, RunConfig, layered, source
from tau2.errors import UserInputError
from tau2.llm import resolve_transport
from tau2.world import Side


def resolved_model(model: ModelSpec | None) -> ModelSpec | None:
    """`model` with its transport resolved."""
    return None if model is None else model.model_copy(update={"transport": resolve_transport(model)})


def resolved_seat(spec: ActorSpec, seat: Side, layers: Sequence[ConfigLayer] = ()) -> ActorSpec:
    """The seat's spec checked against what its kind accepts, its model's transport resolved; `layers`
    name the settings in errors as they were given."""
    checked_kind(spec, seat)
    if spec.text_tool_calls and spec.model is None:
        option = source(layers, (seat.value, "text_tool_calls"))
        raise UserInputError(f"{option}: the {spec.kind} seat has no model replies to read")
    return spec.model_copy(update={"model": resolved_model(spec.model)})


class SeatRequest(BaseModel):
    """A seat asked for by its kind and model name alone (how `tau2 play` asks for the other seat)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str | None = None
    model: str | None = None

    def resolve(self, seat: Side, base: ActorSpec | None) -> ActorSpec:
        """The seat's spec: `base` (or the default seat) with the kind and model given, checked."""
        given = {"kind": self.kind, "model": None if self.model is None else {"name": self.model}}
        values = {key: value for key, value in given.items() if value is not None}
        start = None if base is None else RunConfig.model_validate({seat.value: base})
        config = layered([ConfigLayer({seat.value: values})], start)
        spec: ActorSpec = getattr(config, seat.value)
        return resolved_seat(spec, seat)
