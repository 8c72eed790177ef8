"""The conformance check of a perturbation kind, as `check_domain` is a pack's: what would make its runs
wrong — settings without defaults, defaults that perturb, draws that are not reproducible from the seed,
interceptions that touch the world — one line each."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tau2.perturbations._kind import (
    CallAttempt,
    EpisodePerturbation,
    EpisodeStart,
    PerturbationKind,
    PerturbationSettings,
)
from tau2.perturbations._perturber import perturbation_rng
from tau2.perturbations._registry import get_perturbation
from tau2.tasks import Task, initialize_world
from tau2.world import Side

Trace = list[tuple[str, Any]]
"""What one episode's worth of hooks did, in order, to compare two plays."""


def check_perturbation(
    kind: PerturbationKind | str,
    task: Task,
    settings: PerturbationSettings | Mapping[str, Any],
    *,
    data_dir: Path | None = None,
    seeds: Iterable[int] = range(5),
) -> list[str]:
    """Problems of perturbation `kind` (a kind, or its registered name) exercised with `settings` (which
    should perturb: rates above 0) on `task`, whose reference actions are played through its hooks on the
    task's world once per seed; empty when the kind is sound. Never raises."""
    try:
        kind = get_perturbation(kind) if isinstance(kind, str) else kind
    except ValueError as error:
        return [str(error)]
    problems = _settings_problems(kind)
    if problems:
        return problems
    try:
        given = settings if isinstance(settings, kind.settings) else kind.settings.model_validate(settings)
    except ValidationError as error:
        return [f"the settings to exercise are not {kind.settings.__name__}: {error.errors()[0]['msg']}"]
    try:
        default = kind.settings()
        for seed in seeds:
            inert = _play(kind, default, task, data_dir, seed)
            if any(step[0] != "pass" for step in inert):
                problems.append(f"seed {seed}: the default settings perturb the episode: {inert}")
            first = _play(kind, given, task, data_dir, seed)
            if first != _play(kind, given, task, data_dir, seed):
                problems.append(f"seed {seed}: two plays with the same seed differ (draws not from `rng`)")
    except _Touched as touched:
        problems.append(str(touched))
    except Exception as error:  # the check reports, it never raises
        problems.append(f"the kind failed: {type(error).__name__}: {error}")
    return problems


def _settings_problems(kind: PerturbationKind) -> list[str]:
    """A settings model must derive from `PerturbationSettings`, have defaults, and read back its dump."""
    if not (isinstance(kind.settings, type) and issubclass(kind.settings, PerturbationSettings)):
        return [f"settings {kind.settings!r} do not derive from PerturbationSettings"]
    try:
        default = kind.settings()
    except ValidationError as error:
        return [
            f"settings {kind.settings.__name__} need a default for every field: {error.errors()[0]['loc']}"
        ]
    if kind.settings.model_validate(default.model_dump(mode="json")) != default:
        return [f"settings {kind.settings.__name__} do not read back what they write"]
    return []


class _Touched(Exception):
    """An interception changed the episode's world."""


def _play(
    kind: PerturbationKind, settings: PerturbationSettings, task: Task, data_dir: Path | None, seed: int
) -> Trace:
    """Run the hooks of one episode of `task` under `settings` with `seed`: the start, then each reference
    action (by the seat of its side) as a call, run on the world when not intercepted."""
    effect: EpisodePerturbation = kind.episode(settings, perturbation_rng(seed, kind.name))
    start = EpisodeStart(task, data_dir)
    after = effect.before_episode(start)
    trace: Trace = [("start", after.task.model_dump(mode="json"))] if after != start else []
    world = initialize_world(after.task, after.data_dir, base=after.base)
    for step in after.task.evaluation.solution:
        tool = world.tools.tool(step.name)
        if tool is None:
            continue
        before = world.snapshot()
        seat = Side(step.side)
        caught = effect.intercept(CallAttempt(seat, tool, dict(step.arguments), world))
        if world.snapshot() != before:
            raise _Touched(f"intercepting {step.name} changed the world")
        if caught is None:
            trace.append(("pass", world.call(tool.side, tool.name, step.arguments).ok))
        else:
            trace.append((caught.effect, caught.result.model_dump(mode="json")))
    trace += [("event", event.model_dump(mode="json")) for event in effect.events]
    return trace
