"""Driving the orchestrator from synchronous code: the episode runs on an event loop in a background
thread, and each seat played from outside is an actor whose `act` waits for the action handed to `send`.

There is no second orchestrator: `run_episode` runs unchanged, so turns, observability, termination and
evaluation are exactly those of every other episode.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import weakref
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tau2 import Actor, ActorTurn, Entry, EpisodeConfig, EpisodeResult, SeatContext, Side, Task, run_episode


@dataclass(frozen=True)
class SeatTurn:
    """A seat played from outside is to act: what it observed since its previous turn."""

    seat: Side
    observation: list[Entry]


@dataclass(frozen=True)
class EpisodeFailed:
    """The episode could not run (e.g. its task failed to initialise); `error` is re-raised by the caller."""

    error: Exception


Event = SeatTurn | EpisodeResult | EpisodeFailed


@dataclass
class _Episode:
    """One running episode: its events for the caller and the turn its outside seat is waiting on."""

    events: queue.Queue[Event] = field(default_factory=queue.Queue)
    waiting: asyncio.Future[ActorTurn] | None = None
    contexts: dict[Side, SeatContext] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


class OutsideSeat:
    """The actor of a seat played from outside: posts each observation and waits for the turn sent back."""

    def __init__(self, episode: _Episode, seat: Side) -> None:
        self._episode = episode
        self._seat = seat

    async def start(self, context: SeatContext) -> None:
        """Keep the seat's context, so the caller can show it its tools and brief."""
        self._episode.contexts[self._seat] = context

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Hand the observation to the caller and wait for its turn."""
        waiting: asyncio.Future[ActorTurn] = asyncio.get_running_loop().create_future()
        self._episode.waiting = waiting
        self._episode.events.put(SeatTurn(self._seat, observation))
        return await waiting


class EpisodeDriver:
    """Runs episodes one at a time on a private event loop in a daemon thread.

    `start` begins an episode and returns its first event; `send` answers a `SeatTurn` and returns the
    next event. A new `start` (or `close`) cancels an unfinished episode.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._episode: _Episode | None = None

    def start(
        self,
        task: Task,
        actors: dict[Side, Actor | None],
        config: EpisodeConfig,
        *,
        data_dir: Path | None = None,
        labels: dict[Side, str] | None = None,
    ) -> Event:
        """Begin an episode; a seat whose actor is None is played from outside (through `send`)."""
        self.cancel()
        episode = _Episode()
        seats = {seat: actor or OutsideSeat(episode, seat) for seat, actor in actors.items()}
        episode_run = _run(episode, task, seats, config, data_dir, labels or {})
        self._in_loop(_spawn(episode, episode_run))
        self._episode = episode
        return episode.events.get()

    def send(self, turn: ActorTurn) -> Event:
        """Give the waiting seat its turn and return the next event."""
        episode = self._episode
        if episode is None or episode.waiting is None:
            raise RuntimeError("no seat is waiting for a turn: start an episode first")
        waiting, episode.waiting = episode.waiting, None
        assert self._loop is not None
        self._loop.call_soon_threadsafe(_answer, waiting, turn)
        return episode.events.get()

    def context(self, seat: Side) -> SeatContext | None:
        """The context the current episode gave `seat` (None before it started)."""
        return None if self._episode is None else self._episode.contexts.get(seat)

    def cancel(self) -> None:
        """Stop the current episode if it is still running, and wait until it has."""
        episode, self._episode = self._episode, None
        if episode is not None and episode.task is not None:
            self._in_loop(_stop(episode.task))

    def close(self) -> None:
        """Cancel any episode and stop the background thread."""
        self._episode = None
        if self._finalizer is not None:
            self._finalizer()
        self._loop = self._finalizer = None

    def _in_loop(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run `coroutine` on the background loop (started on first use) and wait for it."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            thread = threading.Thread(target=self._loop.run_forever, name="tau2-episode", daemon=True)
            thread.start()
            self._finalizer = weakref.finalize(self, _shutdown, self._loop, thread)
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()


def _shutdown(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Cancel what still runs on `loop`, stop it and its thread (on `close`, collection or exit)."""
    asyncio.run_coroutine_threadsafe(_cancel_all(), loop).result()
    loop.call_soon_threadsafe(loop.stop)
    thread.join()
    loop.close()


async def _cancel_all() -> None:
    current = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not current:
            await _stop(task)


async def _spawn(episode: _Episode, episode_run: Coroutine[Any, Any, None]) -> None:
    episode.task = asyncio.get_running_loop().create_task(episode_run)


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _answer(waiting: asyncio.Future[ActorTurn], turn: ActorTurn) -> None:
    if not waiting.done():
        waiting.set_result(turn)


async def _run(
    episode: _Episode,
    task: Task,
    actors: dict[Side, Actor],
    config: EpisodeConfig,
    data_dir: Path | None,
    labels: dict[Side, str],
) -> None:
    """Run the episode and post its result (or the error that stopped it)."""
    try:
        result = await run_episode(
            task,
            actors[Side.AGENT],
            actors.get(Side.USER),
            config,
            data_dir=data_dir,
            agent_label=labels.get(Side.AGENT),
            user_label=labels.get(Side.USER),
        )
    except Exception as error:
        episode.events.put(EpisodeFailed(error))
    else:
        episode.events.put(result)
