"""What one reference action changed in a world's state, as (path, new value) places in document order, so
that the same action on the original and the renamed world can be compared place by place. Maps are
followed key by key and lists of records item by item; any other changed value (a list of identifiers a
tool keeps sorted, say) is one place."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tau2.tasks import SolutionStep
from tau2.world import ToolResult, World

Change = tuple[tuple[str, ...], Any]
"""A changed place of a state: its path (keys and positions) and its new value as JSON."""


def call_with_changes(world: World, step: SolutionStep) -> tuple[ToolResult, list[Change]]:
    """Run one reference action, with the places of the state it changed. A domain that copies its state
    sharing the unchanged records (`fresh_state`) is compared by identity, so a large database costs
    nothing for the records the action left alone; any other by its snapshot."""
    changes: list[Change] = []
    copy = world.domain.fresh_state
    if copy is None:
        before = json.loads(world.snapshot())
        result = world.call(step.side, step.name, step.arguments)
        _changes(before, json.loads(world.snapshot()), (), changes, lambda left, right: left == right)
        return result, changes
    shared = copy(world.state)
    result = world.call(step.side, step.name, step.arguments)
    _changes(shared, world.state, (), changes, lambda left, right: left is right)
    return result, changes


def _changes(
    before: Any, after: Any, path: tuple[str, ...], out: list[Change], same: Callable[[Any, Any], bool]
) -> None:
    """Append the changed places between `before` and `after`; `same` tells values that did not change."""
    if same(before, after):
        return
    if isinstance(before, BaseModel) and type(before) is type(after):
        for name in type(before).model_fields:
            _changes(getattr(before, name), getattr(after, name), (*path, name), out, same)
    elif isinstance(before, dict) and isinstance(after, dict):
        changed = [key for key, value in before.items() if not same(after.get(key, _ABSENT), value)]
        changed += [key for key in after if key not in before]
        for key in changed:
            old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
            if new is _ABSENT:
                out.append(((*path, str(key)), None))
            elif old is _ABSENT:
                out.append(((*path, str(key)), to_jsonable_python(new)))
            else:
                _changes(old, new, (*path, str(key)), out, same)
    elif _records(before) and _records(after) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            _changes(old, new, (*path, str(index)), out, same)
    elif before != after:
        out.append((path, to_jsonable_python(after)))


def _records(value: Any) -> bool:
    """Whether a value is a non-empty list of records (maps or models)."""
    return (
        isinstance(value, list) and bool(value) and all(isinstance(item, dict | BaseModel) for item in value)
    )


_ABSENT = object()
