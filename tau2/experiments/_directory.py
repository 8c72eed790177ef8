"""An experiment's own directory: claimed for one process, empty for a new experiment, and on resume
holding an experiment the given configuration matches (differences named, secrets aside)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tau2.config import EXECUTION_SETTINGS
from tau2.errors import UserInputError
from tau2.experiments._config import ExperimentConfig
from tau2.experiments._manifest import EXPERIMENT_FILE, ExperimentManifest, load_experiment, redacted
from tau2.runs import DirectoryWords, RunDirectoryLock, clear_unfinished_writes

_SHOWN = 3
"""How many differences a refused resume names."""


@contextmanager
def claim_directory(out: Path, words: DirectoryWords) -> Iterator[None]:
    """Create and lock `out` while the experiment uses it (removed again on failure if it was created
    here and is still empty)."""
    with RunDirectoryLock(out, words) as lock:
        lock.acquire()
        yield


def experiment_manifest(
    config: ExperimentConfig, out: Path, *, resume: bool, words: DirectoryWords
) -> ExperimentManifest:
    """A new experiment's manifest for the empty directory `out`, or with `resume` the stored one with
    `config`, which must match it in everything but the budget and the settings of how it runs (executor,
    concurrency, rate limits, model cache); secrets redacted either way. A refusal says the ways on in the
    caller's `words`."""
    if not resume:
        clear_unfinished_writes(out, EXPERIMENT_FILE, "experiment", words)
        return ExperimentManifest(created_at=datetime.now(UTC), config=redacted(config))
    if not (out / EXPERIMENT_FILE).is_file():
        raise UserInputError(f"{out}: no experiment to resume ({EXPERIMENT_FILE} is missing)")
    stored = load_experiment(out)
    may_change = ("budget.", *(f"base.{setting}" for setting in EXECUTION_SETTINGS))
    changed = [
        difference
        for difference in differences(stored.config, redacted(config))
        # a resume may spend more, or less, than planned before, and run elsewhere
        if not difference.startswith(may_change)
    ]
    if changed:
        shown = "; ".join(changed[:_SHOWN]) + (
            f"; … ({len(changed)} in all)" if len(changed) > _SHOWN else ""
        )
        raise UserInputError(
            f"{out}: cannot resume: the experiment differs in {shown} (give the original experiment, "
            f"or start a new one: {words.elsewhere})"
        )
    return stored.model_copy(update={"config": redacted(config)})


def differences(stored: ExperimentConfig, given: ExperimentConfig) -> list[str]:
    """The settings that differ, each as `base.trials (2 → 3)`; arms are named by name."""
    before, after = _flat(stored), _flat(given)
    return [
        f"{key} ({_shown(before.get(key))} → {_shown(after.get(key))})"
        for key in dict.fromkeys([*before, *after])
        if before.get(key) != after.get(key)
    ]


def _flat(config: ExperimentConfig) -> dict[str, Any]:
    """Every setting of `config` by its dotted name, arms under `arms.<name>`."""
    data = config.model_dump(mode="json")
    flat: dict[str, Any] = {
        "name": data["name"],
        "baseline": data["baseline"],
        "arms": ", ".join(arm["name"] for arm in data["arms"]),
    }
    _flatten("base", data["base"], flat)
    for arm in data["arms"]:
        _flatten(f"arms.{arm['name']}", arm["overrides"], flat)
    _flatten("budget", data["budget"], flat)
    return flat


def _flatten(prefix: str, value: Any, into: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}", item, into)
    else:
        into[prefix] = value


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list):
        return f"{len(value)} items"
    return str(value)
