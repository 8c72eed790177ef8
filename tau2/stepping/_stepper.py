"""Stepping the episode core from synchronous code: the seats played from outside (a learner, a person)
get each `Turn` and answer it with `send`; the other seats' actors take their turns in between.

The stepper calls the episode core directly, in the caller's thread: there is no second orchestrator,
no background thread and no queue, so turns, observability, termination and evaluation are exactly those
of every other episode, and an error in a task or an actor surfaces where the caller can see it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tau2.episode import (
    Actor,
    ActorTurn,
    Episode,
    EpisodeConfig,
    EpisodeResult,
    SeatContext,
    Turn,
    start_actors,
    take_turns,
)
from tau2.tasks import Task
from tau2.world import Side

T = TypeVar("T")

Event = Turn | EpisodeResult
"""What the caller is handed: the turn of a seat it plays, or the finished episode's result."""


class EpisodeStepper:
    """Runs episodes one at a time. `start` begins one and returns its first event; `send` answers the
    `Turn` of a seat played from outside and returns the next event. A new `start` abandons an unfinished
    episode."""

    def __init__(self) -> None:
        self._actors = _ActorCalls()
        self._episode: Episode | None = None
        self._playing: dict[Side, Actor] = {}
        self._labels: dict[Side, str] = {}
        self._waiting = False

    def start(
        self,
        task: Task,
        actors: dict[Side, Actor | None],
        config: EpisodeConfig,
        *,
        data_dir: Path | None = None,
        labels: dict[Side, str] | None = None,
    ) -> Event:
        """Begin an episode; a seat whose actor is None is played from outside (through `send`). A task
        that fails to initialise raises `TaskSetupError`."""
        self._episode, self._waiting = None, False
        episode = (
            self._actors.run(Episode.create(task, config, data_dir=data_dir))
            if config.perturbations  # one may wait on a model before the episode (a paraphrased brief)
            else Episode(task, config, data_dir=data_dir)
        )
        self._episode = episode
        self._playing = {seat: actor for seat, actor in actors.items() if actor is not None}
        self._labels = labels or {}
        first = self._actors.run(start_actors(episode, self._playing)) if self._playing else episode.start()
        return self._advance(first)

    def send(self, turn: ActorTurn) -> Event:
        """Give the waiting seat its turn and return the next event."""
        episode = self._episode
        if episode is None or not self._waiting:
            raise RuntimeError("no seat is waiting for a turn: start an episode first")
        self._waiting = False
        return self._advance(episode.apply(turn))

    def context(self, seat: Side) -> SeatContext | None:
        """The context the current episode gave `seat` (None before one started)."""
        return None if self._episode is None else self._episode.contexts.get(seat)

    def close(self) -> None:
        """Close the event loop the actors ran on (it is opened again if another episode starts)."""
        self._actors.close()

    def _advance(self, turn: Turn | None) -> Event:
        """Let the actors play until a seat played from outside is to act, or the episode is over."""
        episode = self._episode
        assert episode is not None
        if turn is not None and turn.seat in self._playing:
            turn = self._actors.run(take_turns(episode, self._playing, turn))
        if turn is not None:
            self._waiting = True
            return turn
        return episode.result(
            agent_label=self._labels.get(Side.AGENT), user_label=self._labels.get(Side.USER)
        )


class _ActorCalls:
    """Runs actors' coroutines to completion from synchronous code, on one private event loop kept from
    call to call (an actor's HTTP sessions belong to the loop they were opened on), opened on first use."""

    def __init__(self) -> None:
        self._runner: asyncio.Runner | None = None
        self._closer: weakref.finalize[Any, Any] | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` to its end and return its value (or raise its exception)."""
        if self._runner is None:
            self._runner = asyncio.Runner()
            self._closer = weakref.finalize(self, _outside_any_loop, self._runner.close)
        runner = self._runner
        return _outside_any_loop(lambda: runner.run(coroutine))

    def close(self) -> None:
        """Close the loop, ending what still runs on it (its HTTP sessions among them)."""
        if self._closer is not None:
            self._closer()
        self._runner = self._closer = None


def _outside_any_loop(function: Callable[[], T]) -> T:
    """Call `function` in this thread, or on a helper thread for the length of the call when this thread
    already runs an event loop (a notebook cell does): a thread runs at most one loop at a time."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return function()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="tau2-actor") as helper:
        return helper.submit(function).result()
