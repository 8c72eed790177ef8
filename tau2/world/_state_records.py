"""The records of a state: the entities a change belongs to (a line, a bill, an order, a reservation, an
account), told from the state's own model so every domain gets them without declaring anything.

A leaf change's record is the element of the first collection on its path: the entry of a map (`orders.#W1`,
`accounts.data.a1f3`) or the item of a list (`crm.lines[18]`); a leaf reached through models alone belongs
to the top-level field it lies in (the telecom phone, `device`). A list item is named by its own identifier
when it has one (its first text field called `id` or ending in `_id`: `crm.lines[L1019]`), so a record keeps
its name whatever its position. Map keys are read up to the next field of the entry's model, so they may
hold dots, unless what follows the dot is itself the name of one of the entry's fields.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from tau2.world._state_diff import ChangeKind, StateChange

Token = str | int
"""One step of a path: a model field or map key (text), or a list position."""


@dataclass(frozen=True, slots=True)
class RecordPlace:
    """Where a record lies: its path (a prefix of its leaf changes' paths) and the steps that reach it."""

    path: str
    steps: tuple[Token, ...]

    @property
    def in_list(self) -> bool:
        """Whether the record is a list item (named by its identifier when it has one)."""
        return bool(self.steps) and isinstance(self.steps[-1], int)


def record_of(state_type: type[BaseModel], path: str) -> RecordPlace:
    """The record that the leaf at `path` (as `state_changes` writes paths) belongs to, in a state of
    `state_type`."""
    return _record_of(state_type, path)


def record_paths(state_type: type[BaseModel], changes: Iterable[StateChange]) -> dict[str, RecordPlace]:
    """The records `changes` touch, by path, in the order their first change comes."""
    places: dict[str, RecordPlace] = {}
    for change in changes:
        place = _record_of(state_type, change.path)
        places.setdefault(place.path, place)
    return places


def record_name(state: BaseModel, place: RecordPlace, changes: Sequence[StateChange] = ()) -> str:
    """The record's name: its path, with a list item's position replaced by the item's identifier, read
    from `state` (or, for an item no longer there, from its removal among `changes`)."""
    if not place.in_list:
        return place.path
    item = _reach(state, place.steps)
    if item is _MISSING:
        item = next(
            (c.before for c in changes if c.path == place.path and c.kind is ChangeKind.REMOVED), _MISSING
        )
    identifier = _identifier(item)
    if identifier is None:
        return place.path
    return f"{place.path[: place.path.rindex('[')]}[{identifier}]"


@lru_cache(maxsize=16384)
def _record_of(state_type: type[BaseModel], path: str) -> RecordPlace:
    steps: list[Token] = []
    node: Any = state_type
    position = 0
    top: RecordPlace | None = None
    while position < len(path):
        model = _model(node)
        if model is not None:
            name = _field_at(model, path, position)
            if name is None:
                break
            steps.append(name)
            position += len(name)
            if top is None:
                top = RecordPlace(path[:position], tuple(steps))
            node = model.model_fields[name].annotation
            if position < len(path) and path[position] == ".":
                position += 1
            continue
        kind, item = _collection(node)
        if kind == "list" and path.startswith("[", position) and (close := path.find("]", position)) > 0:
            steps.append(int(path[position + 1 : close]))
            return RecordPlace(path[: close + 1], tuple(steps))
        if kind == "map":
            end = _key_end(path, position, item)
            steps.append(path[position:end])
            return RecordPlace(path[:end], tuple(steps))
        break
    if top is not None:
        return top
    first = min((i for i in (path.find("."), path.find("[")) if i >= 0), default=len(path))
    return RecordPlace(path[:first], (path[:first],))


def _key_end(path: str, start: int, item: Any) -> int:
    """Where the map key starting at `start` ends: before the first `.field` of the entry's model (or,
    for entries that are not models, the first `.` or `[`), else at the end of the path."""
    model = _model(item)
    position = start
    while True:
        dot = path.find(".", position)
        bracket = path.find("[", position) if model is None else -1
        if bracket >= 0 and (dot < 0 or bracket < dot):
            return bracket
        if dot < 0:
            return len(path)
        if model is None or _field_at(model, path, dot + 1) is not None:
            return dot
        position = dot + 1


def _field_at(model: type[BaseModel], path: str, position: int) -> str | None:
    """The field of `model` whose name the path has at `position` (followed by `.`, `[` or the end)."""
    for name in _field_names(model):
        end = position + len(name)
        if path.startswith(name, position) and (end == len(path) or path[end] in ".["):
            return name
    return None


@cache
def _field_names(model: type[BaseModel]) -> tuple[str, ...]:
    """The model's field names, longest first (so a name that begins another is tried after it)."""
    return tuple(sorted(model.model_fields, key=len, reverse=True))


def _model(annotation: Any) -> type[BaseModel] | None:
    """The model class an annotation stands for (through `Optional` and `Annotated`), or None."""
    annotation = _unwrapped(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _collection(annotation: Any) -> tuple[str | None, Any]:
    """`("list", item type)`, `("map", value type)` or `(None, None)` for an annotation."""
    annotation = _unwrapped(annotation)
    origin = get_origin(annotation) or annotation
    args = get_args(annotation)
    if isinstance(origin, type) and issubclass(origin, Mapping):
        return "map", args[1] if len(args) == 2 else Any
    if isinstance(origin, type) and issubclass(origin, (list, tuple)):
        return "list", args[0] if args else Any
    return None, None


def _unwrapped(annotation: Any) -> Any:
    """`X` for `X | None`, `Optional[X]` and `Annotated[X, …]`; anything else as it is."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin is Union or origin is types.UnionType:
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


_MISSING: Any = object()


def _reach(value: Any, steps: Sequence[Token]) -> Any:
    """The value at `steps` inside `value` (a model, map or list), or `_MISSING`."""
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, (list, tuple)) or not -len(value) <= step < len(value):
                return _MISSING
            value = value[step]
        elif isinstance(value, BaseModel):
            value = getattr(value, step, _MISSING)
        elif isinstance(value, Mapping):
            value = value.get(step, _MISSING)
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _identifier(item: Any) -> str | None:
    """An item's own identifier: its first text field called `id` or ending in `_id`."""
    if isinstance(item, BaseModel):
        fields: Iterable[tuple[str, Any]] = ((name, getattr(item, name)) for name in type(item).model_fields)
    elif isinstance(item, Mapping):
        fields = item.items()
    else:
        return None
    for name, value in fields:
        if (name == "id" or str(name).endswith("_id")) and isinstance(value, str) and value:
            return value
    return None
