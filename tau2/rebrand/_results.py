"""Comparing a renamed action's result with the image of the original's: lists a tool keeps sorted compared
sorted, and the first differing place written out for a problem line."""

from __future__ import annotations

from typing import Any

from tau2.rebrand._paths import Path

SHOWN = 160
"""Characters of a differing value shown in a problem line."""


def kept_sorted(values: list[Any]) -> bool:
    """Whether a list of strings is in sorted order (a tool that sorts identifiers keeps it so)."""
    return len(values) > 1 and all(isinstance(value, str) for value in values) and values == sorted(values)


def sorted_like(value: Any, original: Any) -> Any:
    """`value` with each list of strings sorted where the original result's list is kept sorted: renamed
    identifiers sort otherwise, and a tool that sorts them is no less consistent."""
    if isinstance(value, dict) and isinstance(original, dict) and len(value) == len(original):
        return {
            key: sorted_like(item, before)
            for (key, item), before in zip(value.items(), original.values(), strict=True)
        }
    if isinstance(value, list) and isinstance(original, list) and len(value) == len(original):
        if kept_sorted(original) and all(isinstance(item, str) for item in value):
            return sorted(value)
        return [sorted_like(item, before) for item, before in zip(value, original, strict=True)]
    return value


def difference(expected: Any, actual: Any, path: Path = ()) -> str:
    """The first place two values differ, as `at PATH: expected X, got Y`."""
    if isinstance(expected, dict) and isinstance(actual, dict) and list(expected) == list(actual):
        for key in expected:
            if expected[key] != actual[key]:
                return difference(expected[key], actual[key], (*path, key))
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            if left != right:
                return difference(left, right, (*path, index))
    if isinstance(expected, str) and isinstance(actual, str):
        pairs = enumerate(zip(expected, actual, strict=False))
        shortest = min(len(expected), len(actual))
        start = next((index for index, (left, right) in pairs if left != right), shortest)
        expected, actual = expected[max(0, start - 40) :], actual[max(0, start - 40) :]
    at = ".".join(str(part) for part in path) or "top"
    return f"at {at}: expected {short(expected)}, got {short(actual)}"


def short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return repr(text if len(text) <= SHOWN else f"{text[:SHOWN]}…")
