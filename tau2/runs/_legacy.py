"""Manifests written before a manifest held its run configuration: the flat shape (`episode`, `agent`,
`trials`, … beside the provenance), read into today's shape, and errors in them named as they are
written there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tau2.config import EpisodeSettings

RENAMED: Final = {"suite_path": "suite", "persona_override": "persona"}
"""Flat fields whose configuration setting has another name."""
CONFIGURATION: Final = frozenset(
    {"data_dir", "agent", "user", "judge", "persona_override", "trials", "seed", "concurrency", "rate_limits"}
)
"""Flat fields that are settings of the configuration alone (with `episode`, whose fields are too)."""
SHARED: Final = frozenset({"suite_path", "domain", "task_ids"})
"""Flat fields that are provenance and also the configuration's settings (what the run was given)."""


def is_flat(data: Any) -> bool:
    """Whether manifest data has the flat shape (no `config`)."""
    return isinstance(data, Mapping) and "config" not in data


def nested(data: Mapping[str, Any]) -> dict[str, Any]:
    """Flat manifest data as today's: its settings under `config`, its provenance beside it. A solo run's
    missing user seat is left to the configuration's default; unknown fields stay where they are (and are
    refused there)."""
    config: dict[str, Any] = {}
    episode = data.get("episode")
    if isinstance(episode, Mapping):
        config.update({key: value for key, value in episode.items() if key != "seed"})
    elif "episode" in data:
        config["episode"] = episode  # not a table: refused, and named, as the configuration's
    for key in CONFIGURATION | SHARED:
        if key in data and not (key == "user" and data[key] is None):
            config[RENAMED.get(key, key)] = data[key]
    provenance = {key: value for key, value in data.items() if key not in CONFIGURATION and key != "episode"}
    return {**provenance, "config": config}


def flat_location(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Where a setting validated under `config` was written in a flat manifest."""
    if len(loc) < 2 or loc[0] != "config":
        return loc
    key, rest = loc[1], loc[2:]
    if key in EpisodeSettings.model_fields or key == "episode":
        return ("episode", *([] if key == "episode" else [key]), *rest)
    original = {new: old for old, new in RENAMED.items()}
    return (original.get(str(key), key), *rest)
