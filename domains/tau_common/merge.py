"""τ²-bench's merge of a task's data patch into a database: nested maps merge key by key, any other value
replaces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def deep_merge(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A new map: `base` with `patch` merged in; maps of `base` are copied where the patch reaches them,
    never changed."""
    merged = dict(base)
    for key, value in patch.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = value
    return merged
