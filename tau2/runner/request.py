"""A run as requested on the command line: every configuration field optional, so a resumed run can take
what was not given from its manifest and refuse only what was given differently."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.actors.base import ActorSpec
from tau2.errors import UserInputError
from tau2.llm.limits import ProviderLimit
from tau2.llm.transports import resolve_transport
from tau2.modes import Mode
from tau2.tools import Side

LLM_KIND: Final = "llm"


class SeatRequest(BaseModel):
    """How one seat was asked for: its kind and, for `llm`, model, API base, provider arguments and
    transport."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str | None = None
    model: str | None = None
    api_base: str | None = None
    args: dict[str, JsonValue] | None = None
    transport: Literal["auto", "native", "litellm"] | None = None

    @property
    def given(self) -> bool:
        """Whether any option of this seat was given."""
        options = (self.kind, self.model, self.api_base, self.args, self.transport)
        return any(value is not None for value in options)

    def resolve(self, seat: Side, base: ActorSpec | None) -> ActorSpec:
        """The seat's spec: `base` with the given options applied (a new kind starts afresh), checked.

        A new `llm` seat records the transport `auto` resolves to, so its manifest says which one ran; a
        resumed seat keeps its stored transport unless another is given.
        """
        fresh = base is None or (self.kind is not None and self.kind != base.kind)
        if base is None or fresh:
            base = ActorSpec(kind=self.kind or LLM_KIND)
        given = {
            "model": self.model,
            "api_base": self.api_base,
            "model_args": self.args,
            "transport": self.transport,
        }
        spec = check_spec(
            seat, base.model_copy(update={key: value for key, value in given.items() if value is not None})
        )
        if spec.kind == LLM_KIND and (fresh or self.transport is not None):
            spec = spec.model_copy(update={"transport": resolve_transport(spec)})
        return spec


def check_spec(seat: Side, spec: ActorSpec) -> ActorSpec:
    """Refuse `llm` without a model, and model options on other kinds (the registry checks the kind)."""
    if spec.kind == LLM_KIND and not spec.model:
        raise UserInputError(f"--{seat.value} llm needs --{seat.value}-model (no model is chosen for you)")
    if spec.kind != LLM_KIND and (spec.model or spec.api_base or spec.model_args or spec.transport != "auto"):
        raise UserInputError(
            f"--{seat.value}-model, --{seat.value}-api-base, --{seat.value}-arg and --{seat.value}-transport "
            f"apply only to --{seat.value} llm, not {spec.kind!r}"
        )
    return spec


class RunRequest(BaseModel):
    """The configuration options of `tau2 run`; None means "not given"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: Path | None = None
    domain: str | None = None
    task_ids: list[str] | None = None
    mode: Mode | None = None
    oracle_plan: bool | None = None
    agent: SeatRequest = SeatRequest()
    user: SeatRequest = SeatRequest()
    persona: str | None = None
    trials: int | None = None
    seed: int | None = None
    max_steps: int | None = None
    max_errors: int | None = None
    policy_variant: str | None = None
    data_dir: Path | None = None


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
    """Task ids from comma-separated, repeatable `--task-ids` values, in order, without repeats."""
    ids = [part.strip() for item in items for part in item.split(",") if part.strip()]
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
