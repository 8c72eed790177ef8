"""A state's digest as τ²-bench computes its database hash: SHA-256 of the state's `model_dump()` written as
JSON with sorted keys (every field, nulls included; anything JSON has no type for written as its `str`);
and `same_state`, which tells whether two states have the same digest without writing either out.

Two states match when their digests do, so values Python calls equal but JSON writes apart differ here:
`True`, `1` and `1.0`; a key holding null and a missing key; `0.0` and `-0.0`.
"""

from __future__ import annotations

import hashlib
import json
from itertools import compress
from operator import is_not
from typing import Any

import orjson
from pydantic import BaseModel


def state_text(state: BaseModel) -> str:
    """The text τ²-bench hashes for a database: sorted-key JSON of `model_dump()`."""
    return json.dumps(state.model_dump(), sort_keys=True, default=str)


def state_digest(state: BaseModel) -> str:
    """The SHA-256 (hex) of `state_text(state)`: τ²-bench's database hash."""
    return hashlib.sha256(state_text(state).encode()).hexdigest()


WALK_BUDGET = 256
"""Parts of two states that differ in identity walked before `same_state` compares their texts instead."""


def same_state(first: BaseModel, second: BaseModel) -> bool:
    """Whether the two states have the same digest. Both are walked side by side and a part they share
    (worlds share the records neither changed) is not looked into, so this costs what differs between
    them rather than the size of the database; states that share little are compared as sorted-key
    JSON texts written by `orjson`, and Python's equality or τ²-bench's own text settles what those
    texts cannot tell (a NaN and a null both come out as `null` there)."""
    try:
        return _Walk(WALK_BUDGET).same(first, second)
    except _Unshared:
        return _same_text(first, second)


class _Unshared(Exception):
    """The walk met more unshared parts than its budget."""


class _Walk:
    def __init__(self, budget: int) -> None:
        self._budget = budget

    def same(self, first: Any, second: Any) -> bool:
        if first is second:
            return True
        self._budget -= 1
        if self._budget < 0:
            raise _Unshared
        kind = _kind(first)
        if kind != _kind(second):
            return False
        if kind == "model":
            model = type(first)
            if model is not type(second) or not _plain(model):
                return _text(first) == _text(second)
            names = model.model_fields
            if not all(self.same(getattr(first, name), getattr(second, name)) for name in names):
                return False
            return self.same(first.__pydantic_extra__ or {}, second.__pydantic_extra__ or {})
        if kind == "dict":
            if first.keys() != second.keys():  # JSON writes keys that are not text as text: 1 and "1" meet
                texts = all(type(key) is str for key in first) and all(type(key) is str for key in second)
                return False if texts else _text(first) == _text(second)
            apart = compress(first, map(is_not, first.values(), map(second.__getitem__, first)))
            return all(self.same(first[key], second[key]) for key in apart)  # shared values: skipped in C
        if kind == "list":
            if len(first) != len(second):
                return False
            apart = compress(range(len(first)), map(is_not, first, second))
            return all(self.same(first[index], second[index]) for index in apart)
        if kind == "float":
            return float.__repr__(first) == float.__repr__(second)  # as JSON writes them: -0.0, nan
        if kind in ("str", "int", "bool"):
            return bool(first == second)
        if kind == "null":
            return True
        return str(first) == str(second)  # what JSON writes for a value it has no type for


def _same_text(first: BaseModel, second: BaseModel) -> bool:
    one, other = first.model_dump(), second.model_dump()
    options = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
    try:
        fast = orjson.dumps(one, option=options, default=str) == orjson.dumps(
            other, option=options, default=str
        )
    except TypeError:  # an integer beyond 64 bits: only `json` writes those
        return _text(one) == _text(other)
    return fast and (bool(one == other) or _text(one) == _text(other))


def _kind(value: Any) -> str:
    """The JSON type a value is written as, tested in the order `json` tests them."""
    if isinstance(value, str):
        return "str"
    if value is None:
        return "null"
    if value is True or value is False:
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, BaseModel):
        return "model"
    return "other"


_PLAIN: dict[type[BaseModel], bool] = {}


def _plain(model: type[BaseModel]) -> bool:
    """Whether `model_dump` writes the model's fields as they are: no serializer of its own, no computed or
    excluded field (worked out once per model)."""
    plain = _PLAIN.get(model)
    if plain is None:
        decorators = model.__pydantic_decorators__
        plain = _PLAIN[model] = not (
            decorators.model_serializers
            or decorators.field_serializers
            or model.model_computed_fields
            or any(field.exclude for field in model.model_fields.values())
        )
    return plain


def _text(value: Any) -> str:
    """The JSON text of one part of a state, as `state_text` writes it."""
    return json.dumps(_dumped(value), sort_keys=True, default=str)


def _dumped(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {key: _dumped(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_dumped(item) for item in value]
    return value
