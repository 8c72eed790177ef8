"""A run as requested on the command line: every configuration field optional, so a resumed run can take
what was not given from its manifest and refuse only what was given differently."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.actors.base import ActorSpec
from tau2.errors import UserInputError
from tau2.llm.limits import ProviderLimit
from tau2.modes import Mode
from tau2.tools import Side

LLM_KIND: Final = "llm"


class SeatRequest(BaseModel):
    """How one seat was asked for: its kind and, for `llm`, model, API base and provider arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str | None = None
    model: str | None = None
    api_base: str | None = None
    args: dict[str, JsonValue] | None = None

    @property
    def given(self) -> bool:
        """Whether any option of this seat was given."""
        return any(value is not None for value in (self.kind, self.model, self.api_base, self.args))

    def resolve(self, seat: Side, base: ActorSpec | None) -> ActorSpec:
        """The seat's spec: `base` with the given options applied (a new kind starts afresh), checked."""
        if base is None or (self.kind is not None and self.kind != base.kind):
            base = ActorSpec(kind=self.kind or LLM_KIND)
        given = {"model": self.model, "api_base": self.api_base, "model_args": self.args}
        spec = base.model_copy(update={key: value for key, value in given.items() if value is not None})
        return check_spec(seat, spec)


def check_spec(seat: Side, spec: ActorSpec) -> ActorSpec:
    """Refuse `llm` without a model, and model options on other kinds (the registry checks the kind)."""
    if spec.kind == LLM_KIND and not spec.model:
        raise UserInputError(f"--{seat.value} llm needs --{seat.value}-model (no model is chosen for you)")
    if spec.kind != LLM_KIND and (spec.model or spec.api_base or spec.model_args):
        raise UserInputError(
            f"--{seat.value}-model, --{seat.value}-api-base and --{seat.value}-arg apply only to "
            f"--{seat.value} llm, not {spec.kind!r}"
        )
    return spec


class RunRequest(BaseModel):
    """The configuration options of `tau2 run`; None means "not given"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: Path | None = None
    domain: str | None = None
    task_ids: list[str] | None = None
    split: str | None = None
    """A split of `split_tasks.json` beside the task file, instead of `task_ids`."""
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
    judge_model: str | None = None
    judge_api_base: str | None = None
    judge_args: dict[str, JsonValue] | None = None

    def judge(self, base: ActorSpec | None) -> ActorSpec | None:
        """The natural-language judge: `base` (a resumed run's) with the given options applied; None when
        neither names a model."""
        given = {"model": self.judge_model, "api_base": self.judge_api_base, "model_args": self.judge_args}
        if base is None:
            if self.judge_model is None:
                if self.judge_api_base is not None or self.judge_args is not None:
                    raise UserInputError("--judge-api-base and --judge-arg need --judge-model")
                return None
            base = ActorSpec(kind=LLM_KIND)
        return base.model_copy(update={key: value for key, value in given.items() if value is not None})


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
