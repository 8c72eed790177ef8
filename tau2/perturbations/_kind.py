"""The contract of a perturbation kind: its settings, and the per-episode object that acts on the episode at
its two hooks — before it starts (the task and the data its world is built from) and at each tool call
(a call intercepted before it reaches the world) — and says afterwards whether the agent noticed."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.perturbations._record import PerturbationEvent
from tau2.tasks import Domain, Task
from tau2.world import Side, Tool, ToolResult, World


class PerturbationSettings(BaseModel):
    """The settings of one perturbation kind, as a run configuration gives them under
    `[perturbations.<kind>]`; every kind's settings model derives from this one. A kind's settings at their
    defaults (rates of 0) must leave every episode exactly as it would be unperturbed."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class RecordedSettings(PerturbationSettings):
    """A recorded kind's settings kept as they were written, unread (a run's manifest naming a kind by a
    reference nobody named in this process: it is not imported to read them)."""

    model_config = ConfigDict(frozen=True, extra="allow")


@dataclass(frozen=True)
class EpisodeStart:
    """What an episode is built from: the task as played and the data directory its world (and the
    evaluation's reference world) is built from (None: the domain's own data); or, when a perturbation
    renamed the data, the loaded state its world starts from (`base`) and the reference end state the
    database check compares with (`reference`)."""

    task: Task
    data_dir: Path | None
    base: BaseModel | None = None
    reference: BaseModel | None = None


@dataclass(frozen=True)
class CallAttempt:
    """A seat's call of a tool it holds, about to be run on the world."""

    seat: Side
    """The seat calling (in solo mode the agent calls the customer's tools too)."""
    tool: Tool
    arguments: dict[str, Any]
    world: World
    """The episode's world: read it, or run the call on a copy of it; never change it."""


@dataclass(frozen=True)
class Interception:
    """A call a perturbation kept from the world: what the seat is told instead, and the event recorded."""

    result: ToolResult
    effect: str
    detail: str | None = None
    repeat: bool = False


@dataclass(frozen=True)
class Step:
    """One step of a finished episode as a perturbation reads it to tell whether the agent noticed: a
    message or a tool call, by which seat."""

    index: int
    seat: Side
    tool: str | None = None
    """The tool called (None for a message)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    reads: bool = False
    """The tool only reads the world."""


class EpisodePerturbation:
    """One kind's effect on one episode, drawn from its own random stream (seeded per simulation). The
    hooks default to doing nothing; a kind overrides those it needs."""

    def __init__(self, name: str, rng: random.Random) -> None:
        self.name = name
        self.rng = rng
        """The kind's own stream for this simulation: the same (task, trial) draws the same in every arm."""
        self.events: list[PerturbationEvent] = []
        """What it did so far (the episode adds the events of intercepted calls)."""

    def before_episode(self, start: EpisodeStart) -> EpisodeStart:
        """The task and data the episode is built from (a renamed world, a rewritten or shortened brief);
        events of what it changed go to `events`."""
        return start

    async def abefore_episode(self, start: EpisodeStart) -> EpisodeStart:
        """`before_episode` for a driver that can await (`Episode.create`, which every run, `run_episode`
        and the stepper use): a kind whose change needs an answer it must wait for (a model's) overrides
        this one, and its `before_episode` refuses in one line (`UserInputError`) what it cannot do
        without waiting. The default is `before_episode`."""
        return self.before_episode(start)

    def intercept(self, attempt: CallAttempt) -> Interception | None:
        """What to do with a call before it reaches the world: None lets it through."""
        return None

    def noticed(self, steps: Sequence[Step], events: Sequence[PerturbationEvent]) -> bool:
        """Whether the agent noticed this kind's `events` in the finished episode's `steps`."""
        return False


PerturbationBuilder = Callable[[Any, str, random.Random], EpisodePerturbation]
"""Builds a kind's per-episode object from its settings, its name and its seeded stream."""


@dataclass(frozen=True)
class PerturbationKind:
    """A kind of perturbation: its settings model and how to build its effect on one episode."""

    name: str
    settings: type[PerturbationSettings]
    build: PerturbationBuilder
    description: str = ""
    refuses: Callable[[Any, Domain[Any]], str | None] | None = None
    """Why the kind cannot perturb a domain's episodes with given settings (None: it can), asked before
    a run or an episode starts so that a condition no simulation could meet is one line, not a run of
    failures."""

    def episode(self, settings: PerturbationSettings, rng: random.Random) -> EpisodePerturbation:
        """The kind's effect on one episode with `settings`, drawing from `rng`."""
        return self.build(settings, self.name, rng)
