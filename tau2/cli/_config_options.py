"""Command-line options derived from the configuration models: one option per configuration field, its
type, help text and default read from the field (and its bounds checked by the field's validation, so a
value given as an option or in a file is refused alike), so no command lists the options by hand.

An option's name is its field's (`max_steps` → `--max-steps`, a unit suffix dropped: `timeout_s` →
`--agent-timeout`), prefixed by the seat or model it belongs to; the few exceptions are in `_NAMES`. Every
derived option defaults to "not given", so a resumed run keeps the stored value and a configuration file's
value stands unless the option overrides it.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from tau2.cli._option_text import parse_assignments, parse_perturbations, parse_rate_limit, parse_task_ids
from tau2.config import (
    EXECUTION_SETTINGS,
    ActorSpec,
    ConfigLayer,
    EmbedderConfig,
    EpisodeConfig,
    EpisodeSettings,
    ExecutorConfig,
    FieldPath,
    ModelSpec,
    RetrievalConfig,
    RunConfig,
    field_docs,
    ordered_fields,
)

_NAMES: dict[tuple[type[BaseModel], str], str] = {
    (ModelSpec, "name"): "model",
    (ModelSpec, "args"): "arg",
    (ActorSpec, "kind"): "",
    (RunConfig, "rate_limits"): "rate-limit",
    (RunConfig, "perturbations"): "perturbation",
    (ExecutorConfig, "address"): "ray",
    (RetrievalConfig, "name"): "",
}
"""Options not named after their field: a seat's model is `--agent-model`, its kind `--agent` itself, a
repeatable option is singular, the Ray executor is chosen by giving its address, and a retrieval
configuration by its name (`--retrieval`)."""

_PREFIXES: dict[tuple[type[BaseModel], str], str] = {
    (RunConfig, "retrieval"): "retrieval",
    (RetrievalConfig, "embedder"): "embedding",
}
"""Nested settings whose options carry a prefix of their own: `--retrieval-top-k`, `--embedding-model`."""

_SKIPPED: frozenset[tuple[type[BaseModel], str]] = frozenset(
    {
        (ExecutorConfig, "kind"),
        (EmbedderConfig, "api_key_env"),
        (EmbedderConfig, "timeout_s"),
        (RunConfig, "extra_judges"),
    }
)
"""Fields without an option: the executor's kind follows from `--workers` and `--ray`; the embedder's key
variable and timeout are rarely changed (a configuration file sets them); further judges are the
repeated `--judge-model`s."""

_METAVARS: dict[tuple[type[BaseModel], str], str] = {
    (ModelSpec, "args"): "KEY=VALUE",
    (RunConfig, "rate_limits"): "PROVIDER=CONCURRENCY[/RPM]",
    (RunConfig, "perturbations"): "KIND[:KEY=VALUE,…]",
    (ExecutorConfig, "address"): "ADDRESS",
    (RunConfig, "task_ids"): "ID[,ID…]",
    (RunConfig, "cache"): "DIR",
    (RetrievalConfig, "name"): "NAME",
}


@dataclass(frozen=True)
class TextForm:
    """How the items of a repeatable option become its field's value, and how its help says so."""

    parse: Callable[[str, list[str]], Any]
    """From the option's name and its items to the value (None: nothing given)."""
    note: str


def _names(flag: str, items: list[str]) -> tuple[str, ...] | None:
    """Comma-separated names, blanks dropped; None when no name is left (as if not given)."""
    return tuple(name.strip() for item in items for name in item.split(",") if name.strip()) or None


NAMES = TextForm(_names, "Comma-separated, repeatable.")
"""The form of a field holding names."""

_TEXT_FORMS: dict[tuple[type[BaseModel], str], TextForm] = {
    (ModelSpec, "args"): TextForm(parse_assignments, "Repeatable; VALUE is read as JSON when it parses."),
    (RunConfig, "task_ids"): TextForm(lambda flag, items: parse_task_ids(items), NAMES.note),
    (RunConfig, "rate_limits"): TextForm(
        lambda flag, items: dict(parse_rate_limit(item) for item in items), "Repeatable."
    ),
    (RunConfig, "perturbations"): TextForm(
        parse_perturbations, "Repeatable, one kind each: e.g. tool_faults:rate=0.2,mode=persistent."
    ),
}
"""Repeatable options whose items are not plain names."""

JUDGE_MODELS = TextForm(
    lambda flag, items: tuple(items) or None,
    "Repeatable: the first judge's verdicts decide the reward, each further judge's are recorded and "
    "measured for agreement; the other --judge-* options apply to every judge given.",
)
"""The form of `--judge-model`: one model per judge."""
_JUDGE_NAME: FieldPath = ("judge", "name")
_EXTRA_JUDGES: FieldPath = ("extra_judges",)

_MODEL_OWNER = {"agent": "the agent seat's model", "user": "the user seat's model", "judge": "the judge"}
"""How help texts name whose model an option sets."""


@dataclass(frozen=True)
class DerivedOption:
    """One command-line option and the configuration field it sets."""

    parameter: str
    """The command's parameter name, e.g. `agent_timeout`."""
    flag: str
    """The option, e.g. `--agent-timeout`."""
    path: FieldPath
    """Where its value goes in the configuration, e.g. `("agent", "model", "timeout_s")`."""
    field: FieldInfo
    description: str
    """What the field means (its docstring)."""
    owner: str = ""
    """Whose setting it is, for the help text (`the agent seat`); empty for the run's own settings."""
    metavar: str | None = None
    text_form: TextForm | None = None
    """How the items of a repeatable option become the field's value."""

    def signature_parameter(self) -> inspect.Parameter:
        """The parameter Typer reads the option from (not given: None)."""
        option = typer.Option(
            self.flag if _base_type(self.field) is not bool else f"{self.flag}/--no-{self.flag[2:]}",
            help=self.help,
            show_default=False,
            metavar=self.metavar,
        )
        kind = list[str] if self.text_form is not None else _option_type(self.field)
        annotation = Annotated[kind | None, option]  # type: ignore[valid-type]
        return inspect.Parameter(
            self.parameter, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
        )

    @property
    def help(self) -> str:
        """The field's description, whose setting it is, and the field's default."""
        description = " ".join(self.description.split())
        owner = f"For {self.owner}: " if self.owner else ""
        repeatable = "" if self.text_form is None else f" {self.text_form.note}"
        default = default_text(self.field)
        return f"{owner}{description}{repeatable}" + ("" if default is None else f" (default: {default})")

    def value(self, given: Any) -> Any:
        """The configuration value of what the option was given (its text forms parsed); None when it
        amounts to nothing given (an empty list of names)."""
        return given if self.text_form is None else self.text_form.parse(self.flag, list(given))


def default_text(field: FieldInfo) -> str | None:
    """How a field's default reads in help: None for no default worth saying (none, empty)."""
    default = field.get_default(call_default_factory=True)
    if default is PydanticUndefined or default is None or default in ({}, [], ()):
        return None
    if isinstance(default, bool):
        return "on" if default else "off"
    if isinstance(default, tuple | list):
        return ",".join(map(str, default))
    if isinstance(default, Enum):
        return str(default.value)
    if isinstance(default, BaseModel):
        return None
    return str(default)


def options_of(
    model: type[BaseModel],
    *,
    prefix: str = "",
    path: FieldPath = (),
    owner: str = "",
    only: Iterable[str] | None = None,
) -> list[DerivedOption]:
    """The options of `model`'s fields (those in `only`, when given), nested models expanded: a seat's
    options are prefixed by the seat, its model's too."""
    wanted = set(model.model_fields) if only is None else set(only)
    found: list[DerivedOption] = []
    for name, field in ordered_fields(model):
        if name not in wanted or (model, name) in _SKIPPED:
            continue
        nested = _nested_model(field)
        if model is RunConfig and name in ("agent", "user"):
            found += options_of(ActorSpec, prefix=name, path=(name,), owner=f"the {name} seat")
        elif nested is ModelSpec:
            inner_prefix = prefix or name
            inner_path = (*path, name)
            found += options_of(
                ModelSpec, prefix=inner_prefix, path=inner_path, owner=_MODEL_OWNER[inner_prefix]
            )
        elif nested is not None:
            inner_prefix = _PREFIXES.get((model, name), prefix)
            found += options_of(nested, prefix=inner_prefix, path=(*path, name), owner=owner)
        else:
            found.append(_option(model, name, field, prefix=prefix, path=(*path, name), owner=owner))
    return found


def _option(
    model: type[BaseModel], name: str, field: FieldInfo, *, prefix: str, path: FieldPath, owner: str
) -> DerivedOption:
    stem = _NAMES.get((model, name), re.sub(r"_s$", "", name).replace("_", "-"))
    words = "-".join(part for part in (prefix, stem) if part)
    return DerivedOption(
        parameter=words.replace("-", "_"),
        flag=f"--{words}",
        path=path,
        field=field,
        description=field_docs(model).get(name, ""),
        owner=owner,
        metavar="MODEL" if path == _JUDGE_NAME else _METAVARS.get((model, name), _metavar(name, field)),
        text_form=JUDGE_MODELS
        if path == _JUDGE_NAME
        else _TEXT_FORMS.get((model, name), NAMES if _is_sequence(field) else None),
    )


def run_options() -> list[DerivedOption]:
    """The options of `tau2 run`: every setting of a run."""
    return options_of(RunConfig)


EPISODE_FIELDS = (
    "suite",
    "domain",
    "data_dir",
    "agent",
    "user",
    "judge",
    "judge_always",
    "persona",
    *EpisodeSettings.model_fields,
)
"""The run settings that shape one episode (`tau2 episode` takes those, and an episode seed)."""


def episode_options() -> list[DerivedOption]:
    """The options of `tau2 episode` that set run settings: those shaping one episode."""
    return options_of(RunConfig, only=EPISODE_FIELDS)


def model_options() -> list[DerivedOption]:
    """The options of `tau2 check-model`: each seat's model and whether its replies' text tool calls are
    read, and the judge."""
    seats = [
        option
        for seat in ("agent", "user")
        for option in (
            *options_of(ModelSpec, prefix=seat, path=(seat, "model"), owner=_MODEL_OWNER[seat]),
            *options_of(
                ActorSpec, prefix=seat, path=(seat,), owner=f"the {seat} seat", only=["text_tool_calls"]
            ),
        )
    ]
    return [*seats, *judge_options()]


def execution_options() -> list[DerivedOption]:
    """The options of how simulations run (`--concurrency`, `--rate-limit`, `--workers`, `--ray`,
    `--cache`): `tau2 experiment run` takes these for every arm."""
    return options_of(RunConfig, only=EXECUTION_SETTINGS)


def cache_options() -> list[DerivedOption]:
    """`--cache DIR`: `tau2 regrade` takes it for its judges."""
    return options_of(RunConfig, only=["cache"])


def judge_options() -> list[DerivedOption]:
    """The judge's options (`--judge-model`, repeatable, `--judge-arg`, …): `tau2 regrade` takes these."""
    return options_of(ModelSpec, prefix="judge", path=("judge",), owner=_MODEL_OWNER["judge"])


F = TypeVar("F", bound=Callable[..., Any])


def with_options(options: Sequence[DerivedOption]) -> Callable[[F], F]:
    """Give a command taking `**given` the derived options as parameters (Typer reads the signature)."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [
            parameter
            for parameter in signature.parameters.values()
            if parameter.kind is not parameter.VAR_KEYWORD
        ]
        derived = [option.signature_parameter() for option in options]
        command.__signature__ = signature.replace(parameters=[*own, *derived])  # type: ignore[attr-defined]
        return command

    return decorate


def options_layer(options: Sequence[DerivedOption], given: Mapping[str, Any]) -> ConfigLayer:
    """The settings the options were given, as a configuration layer naming each setting by its option."""
    values: dict[str, Any] = {}
    flags: dict[FieldPath, str] = {}
    for option in options:
        flags[option.path] = option.flag
        if given.get(option.parameter) is None:
            continue
        value = option.value(given[option.parameter])
        if value is None:
            continue
        target = values
        for part in option.path[:-1]:
            target = target.setdefault(part, {})
        target[option.path[-1]] = value
    if _JUDGE_NAME in flags:
        flags[_EXTRA_JUDGES] = flags[_JUDGE_NAME]
        _spread_judges(values)
    layer_values = dict(values)

    def name(path: FieldPath) -> str:
        for length in range(len(path), 0, -1):
            if path[:length] in flags:
                return flags[path[:length]]
        inside = [
            flag
            for where, flag in flags.items()
            if where[: len(path)] == path and _gives(layer_values, where)
        ]
        return ", ".join(inside) or ".".join(path)

    return ConfigLayer(layer_values, name=name, options=True)


def _spread_judges(values: dict[str, Any]) -> None:
    """The judges the repeated `--judge-model` names: the first is the judge, the others its further
    judges, each with the other judge settings given (naming judges sets them all, none left over)."""
    judge = values.get("judge")
    names = judge.get("name") if isinstance(judge, dict) else None
    if not isinstance(names, tuple):
        return
    assert isinstance(judge, dict)
    first, *others = names
    shared = {key: value for key, value in judge.items() if key != "name"}
    judge["name"] = first
    values["extra_judges"] = [{**shared, "name": name} for name in others]


def _gives(values: Mapping[str, Any], path: FieldPath) -> bool:
    value: Any = values
    for part in path:
        if not isinstance(value, Mapping) or part not in value:
            return False
        value = value[part]
    return True


def _nested_model(field: FieldInfo) -> type[BaseModel] | None:
    for member in _members(field.annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            return member
    return None


def _members(annotation: Any) -> tuple[Any, ...]:
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return tuple(member for member in typing.get_args(annotation) if member is not type(None))
    return (annotation,)


def _base_type(field: FieldInfo) -> Any:
    """The field's type without None."""
    members = _members(field.annotation)
    return members[0] if len(members) == 1 else typing.Union[members]  # noqa: UP007


def _metavar(name: str, field: FieldInfo) -> str | None:
    """How help shows an option's value, when Typer's own word for its type says too little."""
    if name.endswith("_s"):
        return "SECONDS"
    return "NAME[,NAME…]" if _is_sequence(field) else None


def _is_sequence(field: FieldInfo) -> bool:
    return typing.get_origin(_base_type(field)) in (list, tuple)


def _option_type(field: FieldInfo) -> Any:
    """The type Typer parses the option as: lists and dictionaries are repeatable text items."""
    base = _base_type(field)
    if typing.get_origin(base) in (list, tuple, dict) or (isinstance(base, type) and issubclass(base, dict)):
        return list[str]
    if base is Path or typing.get_origin(base) is Literal or base in (str, int, float, bool):
        return base
    if isinstance(base, type) and issubclass(base, Enum):
        return base
    if isinstance(base, type) and issubclass(base, str):  # text read into a type of its own (`SecretURL`)
        return str
    raise TypeError(f"no command-line form for a field of type {base!r}")


EPISODE_SEED = _option(
    EpisodeConfig, "seed", EpisodeConfig.model_fields["seed"], prefix="", path=("seed",), owner=""
)
"""`tau2 episode --seed`: the episode's own seed (a run's seed is the one each episode's derives from)."""
