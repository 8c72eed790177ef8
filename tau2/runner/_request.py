"""A run as requested on the command line: every configuration field optional, so a resumed run can take
what was not given from its manifest and refuse only what was given differently."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from tau2.actors import checked_kind
from tau2.episode import ActorSpec, EpisodeConfig
from tau2.errors import UserInputError
from tau2.llm import ModelSpec, ProviderLimit, SecretArgs, TransportChoice, resolve_transport
from tau2.world import Side

DEFAULT_KIND: Final = "llm"
"""The kind of a seat given no kind: a model (which must then be named; nothing is chosen silently)."""


_MODEL_OPTIONS: Final = {
    "api_base": "api-base",
    "args": "arg",
    "timeout_s": "timeout",
    "transport": "transport",
    "retry_budget_s": "retry-budget",
    "max_retries": "max-retries",
}
"""Command-line names of the model settings besides the model itself."""


_RETRIEVAL_OPTIONS: Final = {
    "retrieval.top_k": "retrieval-top-k",
    "retrieval.embedder.model": "embedding-model",
    "retrieval.embedder.api_base": "embedding-api-base",
    "retrieval.embedder": "embedding-model",
}
"""Command-line names of the retrieval settings, by `EpisodeConfig` field path."""


class ModelRequest(BaseModel):
    """A model's options as given on the command line; None means "not given"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    api_base: str | None = None
    args: SecretArgs | None = None
    """Secrets among them are redacted from the moment they are read (see `SecretArgs`)."""
    timeout_s: float | None = None
    transport: TransportChoice | None = None
    retry_budget_s: float | None = None
    max_retries: int | None = None

    @property
    def given(self) -> bool:
        """Whether any option was given."""
        return any(value is not None for value in self.model_dump().values())

    def apply(self, base: ModelSpec | None, option: str) -> ModelSpec | None:
        """`base` with the given settings applied (`option` prefixes the command-line names in errors).
        Given arguments are set over the base's name by name, so a resume may give its keys again alone."""
        given = {"name": self.model, **{key: getattr(self, key) for key in _MODEL_OPTIONS}}
        updates = {key: value for key, value in given.items() if value is not None}
        if not updates:
            return base
        if base is not None and self.args is not None:
            updates["args"] = base.args.merged(self.args)
        if base is None and self.model is None:
            options = ", ".join(f"--{option}-{_MODEL_OPTIONS[key]}" for key in updates)
            raise UserInputError(f"{options}: no model to apply them to (give --{option}-model)")
        settings = updates if base is None else {**dict(base), **updates}  # a dump would drop the secrets
        try:
            model = ModelSpec.model_validate(settings)
        except ValidationError as error:
            problem = error.errors()[0]
            field = str(problem["loc"][0]) if problem["loc"] else "model"
            name = _MODEL_OPTIONS.get(field, "model")
            raise UserInputError(
                f"--{option}-{name}: {problem['msg'].removeprefix('Value error, ')}"
            ) from None
        if base is None or self.transport is not None:
            model = model.model_copy(update={"transport": resolve_transport(model)})
        return model


class SeatRequest(ModelRequest):
    """How one seat was asked for: its kind and, for kinds that take a model, the model's settings."""

    kind: str | None = None
    text_tool_calls: bool | None = None

    def resolve(self, seat: Side, base: ActorSpec | None) -> ActorSpec:
        """The seat's spec: `base` with the given options applied (a new kind starts afresh), checked
        against what its kind accepts."""
        if base is None or (self.kind is not None and self.kind != base.kind):
            base = ActorSpec(kind=self.kind or DEFAULT_KIND)
        update: dict[str, object] = {"model": self.apply(base.model, seat.value)}
        if self.text_tool_calls is not None:
            update["text_tool_calls"] = self.text_tool_calls
        spec = base.model_copy(update=update)
        checked_kind(spec, seat)
        if spec.text_tool_calls and spec.model is None:
            raise UserInputError(
                f"--{seat.value}-text-tool-calls: the {spec.kind} seat has no model replies to read"
            )
        return spec


class RunRequest(BaseModel):
    """The configuration options of `tau2 run` (and, without the run-only ones, `tau2 episode`); None or
    absent means "not given", so a resume takes it from the manifest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: Path | None = None
    domain: str | None = None
    task_ids: list[str] | None = None
    split: str | None = None
    """A split of `split_tasks.json` beside the task file, instead of `task_ids`."""
    agent: SeatRequest = SeatRequest()
    user: SeatRequest = SeatRequest()
    episode: dict[str, JsonValue] = Field(default_factory=dict)
    """The `EpisodeConfig` fields given, by name."""
    persona: str | None = None
    trials: int | None = None
    seed: int | None = None
    data_dir: Path | None = None
    concurrency: int | None = None
    rate_limits: dict[str, ProviderLimit] | None = None
    judge: ModelRequest = ModelRequest()
    """The model judging natural-language assertions (none unless named)."""

    def episode_config(self, base: EpisodeConfig | None = None) -> EpisodeConfig:
        """`base` (or the defaults) with the given episode options applied; a bad value is one line.

        Retrieval options given without `--retrieval` adjust the base's configuration; with it, they
        start a new one."""
        stored = (base or EpisodeConfig()).model_dump(mode="json")
        merged = {**stored, **self.episode}
        given = self.episode.get("retrieval")
        kept = stored.get("retrieval")
        if isinstance(given, dict) and isinstance(kept, dict) and "name" not in given:
            embedder = given.get("embedder")
            kept_embedder = kept.get("embedder")
            if isinstance(embedder, dict) and isinstance(kept_embedder, dict):
                given = {**given, "embedder": {**kept_embedder, **embedder}}
            merged["retrieval"] = {**kept, **given}
        try:
            return EpisodeConfig.model_validate(merged)
        except ValidationError as error:
            problem = error.errors()[0]
            name = ".".join(str(part) for part in problem["loc"]) or "episode"
            if name.startswith("retrieval"):
                name = _RETRIEVAL_OPTIONS.get(name, "retrieval")
            raise UserInputError(f"--{name.replace('_', '-')}: {problem['msg']}") from None


def parse_assignments(option: str, items: Iterable[str]) -> dict[str, JsonValue] | None:
    """`KEY=VALUE` items as a dict, each value parsed as JSON when it parses and kept as text otherwise;
    None when no item was given."""
    parsed: dict[str, JsonValue] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise UserInputError(f"{option} {item!r}: expected KEY=VALUE")
        try:
            value: JsonValue = json.loads(text)
        except json.JSONDecodeError:
            value = text
        parsed[key.strip()] = value
    return parsed or None


def parse_task_ids(items: Iterable[str]) -> list[str] | None:
    """Task ids from comma-separated, repeatable `--task-ids` values, in order, without repeats; None when the
    option was not given. Given but naming no task (`""`, `",,"`) is an error, never "every task"."""
    given = list(items)
    ids = [part.strip() for item in given for part in item.split(",") if part.strip()]
    if given and not ids:
        raise UserInputError("--task-ids: no task id given (leave the option out to run every task)")
    return list(dict.fromkeys(ids)) or None


def parse_rate_limit(text: str) -> tuple[str, ProviderLimit]:
    """`PROVIDER=CONCURRENCY[/RPM]`, e.g. `openai=64/3000` or `localhost:8000=8`, as a key and its limit."""
    key, _, value = text.partition("=")
    concurrent, slash, per_minute = value.partition("/")
    try:
        limit = ProviderLimit(
            max_concurrent=int(concurrent), requests_per_minute=int(per_minute) if slash else None
        )
    except ValueError:  # pydantic's ValidationError included
        limit = None
    if limit is None or not key.strip():
        raise UserInputError(
            f"--rate-limit {text!r}: expected PROVIDER=CONCURRENCY[/REQUESTS_PER_MINUTE], positive integers"
        )
    return key.strip(), limit
