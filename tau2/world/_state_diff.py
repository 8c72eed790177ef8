"""What an episode changed in the world: the difference between two state snapshots as a short list of
leaf changes, computed once when the episode ends so records stay small and reports need no world."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue


class ChangeKind(StrEnum):
    """A value that appeared, disappeared, or was replaced."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


class StateChange(BaseModel):
    """One changed place in the state, e.g. `lines[0].roaming_enabled`; `before`/`after` are JSON values."""

    model_config = ConfigDict(frozen=True)

    path: str
    kind: ChangeKind
    before: JsonValue = None
    after: JsonValue = None


def state_changes(start: bytes, end: bytes) -> list[StateChange]:
    """The leaf differences from snapshot `start` to snapshot `end` (JSON bytes), in document order."""
    if start == end:
        return []
    changes: list[StateChange] = []
    _walk("", json.loads(start), json.loads(end), changes)
    return changes


def shared_state_changes(start: BaseModel, end: BaseModel) -> list[StateChange]:
    """The same differences as `state_changes`, for two states that share their unchanged records (a copy
    made by a domain's `fresh_state`, whose records are immutable): only the fields and map entries that
    are not the very same object in both are serialised and compared (looking inside models that are not
    shared, such as a table holding shared records), so a large database costs nothing for the records an
    episode left alone."""
    include = _unshared(start, end)
    if not include:
        return []
    serializer = type(start).__pydantic_serializer__
    return state_changes(serializer.to_json(start, include=include), serializer.to_json(end, include=include))


def _unshared(start: BaseModel, end: BaseModel) -> dict[str, Any]:
    """What of two states of one model to serialise: per field that is not the same object in both, the
    whole field (`True`), the map keys whose values differ in identity, or the same for a nested model."""
    include: dict[str, Any] = {}
    for name in type(start).model_fields:
        before, after = getattr(start, name), getattr(end, name)
        if before is after:
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            keys = {
                key
                for key in before.keys() | after.keys()
                if before.get(key, _ABSENT) is not after.get(key, _ABSENT)
            }
            if keys:
                include[name] = keys
        elif isinstance(before, BaseModel) and type(before) is type(after):
            nested = _unshared(before, after)
            if nested:
                include[name] = nested
        else:
            include[name] = True
    return include


_ABSENT = object()


def _walk(path: str, before: JsonValue, after: JsonValue, out: list[StateChange]) -> None:
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(key for key in after if key not in before)]:
            child = f"{path}.{key}" if path else str(key)
            _pair(child, key in before, before.get(key), key in after, after.get(key), out)
    elif isinstance(before, list) and isinstance(after, list):
        for index in range(max(len(before), len(after))):
            child = f"{path}[{index}]"
            has_before, has_after = index < len(before), index < len(after)
            _pair(
                child,
                has_before,
                before[index] if has_before else None,
                has_after,
                after[index] if has_after else None,
                out,
            )
    else:
        out.append(StateChange(path=path, kind=ChangeKind.CHANGED, before=before, after=after))


def _pair(
    path: str, has_before: bool, before: JsonValue, has_after: bool, after: JsonValue, out: list[StateChange]
) -> None:
    if not has_before:
        out.append(StateChange(path=path, kind=ChangeKind.ADDED, after=after))
    elif not has_after:
        out.append(StateChange(path=path, kind=ChangeKind.REMOVED, before=before))
    else:
        _walk(path, before, after, out)
