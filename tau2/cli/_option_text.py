"""The text forms settings take on the command line: `KEY=VALUE` provider arguments, comma-separated task
ids, `PROVIDER=CONCURRENCY[/RPM]` rate limits and `KIND:KEY=VALUE,…` perturbations."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pydantic import JsonValue

from tau2._jsonfile import parse_json
from tau2.errors import UserInputError
from tau2.llm import ProviderLimit


def parse_assignments(option: str, items: Iterable[str]) -> dict[str, JsonValue] | None:
    """`KEY=VALUE` items as a dict, each value parsed as JSON when it parses and kept as text otherwise;
    None when no item was given."""
    parsed: dict[str, JsonValue] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise UserInputError(f"{option} {item!r}: expected KEY=VALUE")
        try:
            value: JsonValue = parse_json(text)
        except json.JSONDecodeError:
            value = text
        parsed[key.strip()] = value
    return parsed or None


def parse_perturbations(option: str, items: Iterable[str]) -> dict[str, dict[str, JsonValue]] | None:
    """`KIND[:KEY=VALUE,…]` items as the perturbations' settings by kind (values read as JSON when they
    parse, so `tools=["a","b"]` is a list; the kind may be a `module:attribute` reference, as the settings
    are what follows the last colon); None when no item was given."""
    parsed: dict[str, dict[str, JsonValue]] = {}
    for item in items:
        kind, _, settings = item.rpartition(":")
        if "=" not in settings and settings:  # no settings: the item is the kind (maybe module:attribute)
            kind, settings = item, ""
        if not kind.strip():
            raise UserInputError(f"{option} {item!r}: expected KIND[:KEY=VALUE,…]")
        pairs = [pair for pair in re.split(r",(?=[A-Za-z_][\w]*=)", settings) if pair.strip()]
        parsed[kind.strip()] = parse_assignments(option, pairs) or {}
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
