"""One configuration from several layers: the defaults (or a stored run's configuration, on resume), then a
configuration file, then command-line options, each setting only what it gives. Errors name the value
where it was given: `--agent-timeout`, `run.toml: agent.model.timeout_s`, `agent.model.timeout_s`."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from tau2._registry import allow_reference, refuse_data_reference
from tau2.config._run import ExecutorConfig, RunConfig
from tau2.episode import ActorSpec
from tau2.errors import UserInputError
from tau2.llm import SecretArgs
from tau2.world import RetrievalConfig

FieldPath = tuple[str, ...]
"""Where a setting sits in a configuration, e.g. `("agent", "model", "timeout_s")`."""


def dotted(path: FieldPath) -> str:
    """A field path as configuration files and manifests spell it: `agent.model.timeout_s`."""
    return ".".join(path)


@dataclass(frozen=True)
class ConfigLayer:
    """The settings given in one place, by field name and nested like the configuration (a seat's model
    under `agent.model`), with how that place names a setting in messages."""

    values: Mapping[str, Any]
    name: Callable[[FieldPath], str] = dotted
    """How a message names a setting given here: `--agent-timeout`, `run.toml: agent.model.timeout_s`."""
    options: bool = False
    """Whether the settings are command-line options (messages then speak of options)."""

    @classmethod
    def of(cls, config: RunConfig) -> ConfigLayer:
        """The settings a configuration was given explicitly (its defaults give nothing), secrets' values
        included."""
        return cls(settings(config, given_only=True))

    def gives(self, path: FieldPath) -> bool:
        """Whether this layer sets `path`, or something inside it, or the value containing it."""
        value: Any = self.values
        for part in path:
            if not isinstance(value, Mapping):
                return True
            if part not in value:
                return False
            value = value[part]
        return True

    def leaves(self, path: FieldPath) -> list[FieldPath]:
        """The settings this layer gives inside `path` (the fields of a model it partly sets)."""
        value: Any = self.values
        for part in path:
            if not isinstance(value, Mapping) or part not in value:
                return []
            value = value[part]
        if not isinstance(value, Mapping):
            return [path]
        return [leaf for key in value for leaf in self.leaves((*path, key))]


def settings(model: BaseModel, *, given_only: bool = False) -> dict[str, Any]:
    """A model's settings nested as `model_dump` nests them, but each value as it is held: provider
    arguments stay `SecretArgs` with their secrets' values, which a dump replaces by the marker. With
    `given_only`, only the settings given explicitly (at every depth)."""
    names = model.model_fields_set if given_only else model.model_fields
    return {name: _held(getattr(model, name), given_only) for name in names}


def _held(value: Any, given_only: bool) -> Any:
    if isinstance(value, BaseModel):
        return settings(value, given_only=given_only)
    if isinstance(value, dict) and not isinstance(value, SecretArgs):
        return {key: _held(item, given_only) for key, item in value.items()}
    return value


PLUGIN_SETTINGS: Final = {
    ("domain",): "domain",
    ("agent", "kind"): "actor kind",
    ("user", "kind"): "actor kind",
}
"""The settings that name a plugin, which a `module:attribute` reference imports, and what each names."""


def layered(layers: Sequence[ConfigLayer], base: RunConfig | None = None) -> RunConfig:
    """`base` (or the defaults) with each layer's settings applied in turn; a setting that fails validation
    is one `UserInputError` line naming it as its layer does.

    The layers are what the user gave (options, their configuration files, a configuration built in code):
    the plugins they name may be imported, and files may name them too. `base` is a stored run's
    configuration, read from its manifest: a plugin only it names must be one the user named or installed
    (reading a run never imports the code it names)."""
    _allow_plugins(layers)
    merged: dict[str, Any] = {} if base is None else settings(base)
    if base is not None:
        for path, what in PLUGIN_SETTINGS.items():
            named = _at(merged, path)
            if isinstance(named, str) and not any(layer.gives(path) for layer in layers):
                refuse_data_reference(named, what, f"the run's manifest: config.{dotted(path)}")
        for kind in merged.get("perturbations") or {}:
            if not any(layer.gives(("perturbations", kind)) for layer in layers):
                refuse_data_reference(kind, "perturbation", "the run's manifest: config.perturbations")
    for layer in layers:
        merged = _merge(merged, layer.values, RunConfig)
    try:
        return RunConfig.model_validate(merged)
    except ValidationError as error:
        raise _named(error, layers) from None


def _allow_plugins(layers: Sequence[ConfigLayer]) -> None:
    """Let files name the `module:attribute` plugins the layers (the user) name."""
    for layer in layers:
        for path in PLUGIN_SETTINGS:
            named = _at(layer.values, path)
            if isinstance(named, str):
                allow_reference(named)
        for kind in _at(layer.values, ("perturbations",)) or {}:
            allow_reference(kind)


def _at(values: Mapping[str, Any], path: FieldPath) -> Any:
    """The value at `path` in nested settings, or None."""
    value: Any = values
    for part in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def source(layers: Sequence[ConfigLayer], path: FieldPath) -> str:
    """How the topmost layer giving `path` names it; a setting no layer gives is named by its path."""
    for layer in reversed(layers):
        if layer.gives(path):
            return layer.name(path)
    return dotted(path)


def _merge(lower: Mapping[str, Any], upper: Mapping[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """`upper`'s settings over `lower`'s, into nested models and dictionaries key by key. A setting that
    chooses afresh drops what it replaces: a seat's new kind its other settings (they were for the old
    kind), a split the task ids and the other way round, a domain without a suite the suite (the domain's
    own is meant), an executor's workers or address its kind (it follows from them again), a retrieval
    configuration's new name its other settings. Provider arguments merge name by name, secrets included
    (so a resume gives its keys again without repeating the other arguments)."""
    for choice, chosen in ((ActorSpec, "kind"), (RetrievalConfig, "name")):
        if model is choice and chosen in upper and upper[chosen] != lower.get(chosen):
            lower = {}
    merged = {key: value for key, value in lower.items() if key not in _replaced(model, upper)}
    for key, value in upper.items():
        below = merged.get(key)
        inner = _nested_model(model, key)
        if inner is not None and isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = _merge(below, value, inner)
        elif _is_secret_args(model, key) and isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = _secret_args(below).merged(_secret_args(value))
        elif _is_mapping(model, key) and isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = {**below, **value}
        else:
            merged[key] = value
    return merged


def _replaced(model: type[BaseModel], upper: Mapping[str, Any]) -> set[str]:
    """The lower layers' settings that `upper`'s choices replace."""
    given = set(upper)
    replaced: set[str] = set()
    if model is RunConfig:
        for choice, alternative in (("split", "task_ids"), ("task_ids", "split"), ("domain", "suite")):
            if choice in given and alternative not in given:
                replaced.add(alternative)
    elif model is ExecutorConfig and "kind" not in given and given & {"workers", "address"}:
        replaced.add("kind")
    elif model is ExecutorConfig and upper.get("kind") not in (None, "ray") and "address" not in given:
        replaced.add("address")
    return replaced


def _nested_model(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    """The model class of field `key` (a union with None unwrapped), or None for other fields."""
    field = model.model_fields.get(key)
    if field is None:
        return None
    for member in _members(field.annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            return member
    return None


def _is_mapping(model: type[BaseModel], key: str) -> bool:
    """Whether field `key` is a dictionary (provider arguments, rate limits), merged key by key."""
    field = model.model_fields.get(key)
    return field is not None and any(
        typing.get_origin(member) is dict for member in _members(field.annotation)
    )


def _is_secret_args(model: type[BaseModel], key: str) -> bool:
    """Whether field `key` holds provider arguments (`SecretArgs`)."""
    field = model.model_fields.get(key)
    return field is not None and SecretArgs in _members(field.annotation)


def _secret_args(value: Mapping[str, Any]) -> SecretArgs:
    """Arguments as `SecretArgs`: kept as they are (with their secrets' values), or read afresh."""
    return value if isinstance(value, SecretArgs) else SecretArgs(value)


def _members(annotation: Any) -> tuple[Any, ...]:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return typing.get_args(annotation)
    return (annotation,)


def _named(error: ValidationError, layers: Sequence[ConfigLayer]) -> UserInputError:
    """The first validation error as one line naming the setting where it was given. Model (or retrieval)
    settings given without a model's (or configuration's) name read as options with nothing to apply them
    to."""
    detail = error.errors(include_url=False)[0]
    path = tuple(str(part) for part in detail["loc"] if not _is_tag(part))
    message = detail["msg"].removeprefix("Value error, ")
    if detail["type"] == "missing" and path[-1:] == ("name",):
        giving = [layer for layer in layers if layer.leaves(path[:-1])]
        if giving:
            names = ", ".join(
                dict.fromkeys(layer.name(leaf) for layer in giving for leaf in layer.leaves(path[:-1]))
            )
            what = "retrieval configuration" if path[:-1] == ("retrieval",) else "model"
            return UserInputError(f"{names}: no {what} to apply them to (give {giving[-1].name(path)})")
    return UserInputError(f"{source(layers, path)}: {message}" if path else message)


def _is_tag(part: int | str) -> bool:
    """Whether a location part names a union member or an item index rather than a field."""
    return isinstance(part, int) or part[:1].isupper() or "[" in part
