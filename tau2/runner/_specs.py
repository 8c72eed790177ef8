"""Seats and models made ready to run: each seat's kind checked against what it accepts, each model's
transport resolved (`auto` becomes the transport it chose, which the manifest records)."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.actors import checked_kind
from tau2.config import ActorSpec, ConfigLayer, ModelSpec, source
from tau2.errors import UserInputError
from tau2.llm import resolve_transport
from tau2.world import Side


def resolved_model(model: ModelSpec | None) -> ModelSpec | None:
    """`model` with its transport resolved."""
    return None if model is None else model.model_copy(update={"transport": resolve_transport(model)})


def resolved_models(models: Sequence[ModelSpec]) -> list[ModelSpec]:
    """Each of `models` with its transport resolved."""
    return [model.model_copy(update={"transport": resolve_transport(model)}) for model in models]


def resolved_seat(spec: ActorSpec, seat: Side, layers: Sequence[ConfigLayer] = ()) -> ActorSpec:
    """The seat's spec checked against what its kind accepts, its model's transport resolved; `layers`
    name the settings in errors as they were given."""
    checked_kind(spec, seat)
    if spec.text_tool_calls and spec.model is None:
        option = source(layers, (seat.value, "text_tool_calls"))
        raise UserInputError(f"{option}: the {spec.kind} seat has no model replies to read")
    return spec.model_copy(update={"model": resolved_model(spec.model)})
