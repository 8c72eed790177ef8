"""Configuration files: TOML read with one-line errors, and configurations written back as TOML."""

from __future__ import annotations

import math
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any, Final

import tomli_w
from pydantic import BaseModel

from tau2._jsonfile import read_toml_file
from tau2.config._fields import ordered_fields
from tau2.errors import UserInputError

MAX_CONFIG_BYTES: Final = 1 << 20
"""The largest configuration file read (1 MiB): far beyond any real one, and a device such as /dev/zero
must not fill memory."""


def read_toml(path: Path) -> dict[str, Any]:
    """The table a configuration file holds; an unreadable file or bad TOML is a one-line `UserInputError`."""
    return read_toml_file(path, MAX_CONFIG_BYTES)


def to_toml(model: BaseModel) -> str:
    """`model` as TOML: every setting that has a value, paths made absolute, tables for nested models."""
    table = _table(model)
    _refuse_nulls(table, ())
    return tomli_w.dumps(table)


def _refuse_nulls(data: Any, path: tuple[str, ...]) -> None:
    """TOML cannot write a null inside a value (a provider argument set to null): say where it is."""
    if data is None:
        raise UserInputError(f"{'.'.join(path)}: null cannot be written in TOML")
    if isinstance(data, dict):
        for key, item in data.items():
            _refuse_nulls(item, (*path, str(key)))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            _refuse_nulls(item, (*path, str(index)))


def _table(model: BaseModel) -> dict[str, Any]:
    """The TOML table of a model. TOML has no null: a None that is the default is left out, and an unset
    limit (a None whose default is a number) is written `inf`, which the models read back as None."""
    dumped = model.model_dump(mode="json")
    table: dict[str, Any] = {}
    for name, field in ordered_fields(type(model)):
        if name not in dumped:  # a model may leave out a setting while it is off
            continue
        value = getattr(model, name)
        if value is None:
            if field.default is not None:
                if float not in _members(field.annotation):
                    raise UserInputError(f"{name}: None cannot be written in TOML")
                table[name] = math.inf
            continue
        if value == {} and field.default_factory is dict:
            continue
        table[name] = _value(value, dumped[name])
    return table


def _value(value: Any, dumped: Any) -> Any:
    """One setting as TOML writes it."""
    if isinstance(value, BaseModel):
        return _table(value)
    if isinstance(value, Path):
        return str(value.absolute())
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list) and any(isinstance(item, BaseModel) for item in value):
        return [_table(item) if isinstance(item, BaseModel) else item for item in value]
    if isinstance(value, dict) and any(isinstance(item, BaseModel) for item in value.values()):
        return {key: _table(item) if isinstance(item, BaseModel) else item for key, item in value.items()}
    return dumped


def _members(annotation: Any) -> set[Any]:
    """The types a field annotation allows (the members of a union, or the type itself)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return set(typing.get_args(annotation))
    return {annotation}
