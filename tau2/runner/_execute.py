"""Executing a prepared run: up to `concurrency` simulations in flight on one event loop, each record
handed to the single writer the moment its simulation ends."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from tau2.actors import make_actor
from tau2.episode import Actor, ActorTurn, Entry, EpisodeConfig, NLJudge, SeatContext, run_episode
from tau2.errors import StorageError
from tau2.llm import AuthenticationError, call_settings
from tau2.runner._convert import crash_record, episode_record
from tau2.runner._plan import Unit
from tau2.runner._prepare import PreparedRun
from tau2.runner._progress import ProgressBar
from tau2.runs import MANIFEST_FILE, RESULTS_FILE, RecordWriter, RunManifest, SimulationRecord
from tau2.world import Side


async def execute_run(
    prepared: PreparedRun, progress: ProgressBar, *, concurrency: int, turn_delay_s: float = 0.0
) -> list[SimulationRecord]:
    """Simulate every pending unit and append its record; returns the records this session wrote.

    A new run's manifest is written before the first simulation. Cancelling (Ctrl-C) stops the
    simulations in flight, and the records already finished are still written. Refused credentials stop
    the run the same way and raise `AuthenticationError`: no other simulation could succeed.
    """
    ensure_manifest(prepared)
    pending = deque(prepared.units)
    written: list[SimulationRecord] = []
    judge = None if prepared.manifest.judge is None else NLJudge(prepared.manifest.judge)
    async with RecordWriter(prepared.run_dir / RESULTS_FILE) as writer:

        async def worker() -> None:
            while pending:
                unit = pending.popleft()
                progress.unit_started()
                record = await simulate(prepared, unit, turn_delay_s, judge)
                writer.write(record)
                written.append(record)
                progress.unit_finished(record)

        with stop_on_refusal(), call_settings(on_usage=progress.follow_calls()):
            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(pending))):
                    group.create_task(worker())
    return written


@contextmanager
def stop_on_refusal() -> Iterator[None]:
    """Let a task group that failed because credentials were refused raise that `AuthenticationError`
    alone (one line for the CLI), rather than a group of every task it stopped."""
    try:
        yield
    except BaseExceptionGroup as failures:
        refused = failures.subgroup(AuthenticationError)
        if refused is None:
            raise
        raise _first(refused) from None


def _first(group: BaseExceptionGroup[AuthenticationError]) -> AuthenticationError:
    """The first exception of a (possibly nested) group."""
    found = group.exceptions[0]
    return found if isinstance(found, AuthenticationError) else _first(found)


def ensure_manifest(prepared: PreparedRun) -> None:
    """Write a new run's manifest (or a resumed one that adds trials) before its first simulation; a
    failed write (a full disk) leaves the directory as it was and says how to go on."""
    run_dir = prepared.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    if prepared.stored and not prepared.manifest_changed:
        return
    try:
        prepared.manifest.save(run_dir)
    except OSError as error:
        recovery = (
            "the run is unchanged: free space and resume again"
            if prepared.stored
            else "nothing was recorded: free space and run the same command again"
        )
        reason = error.strerror or str(error)
        raise StorageError(f"{run_dir / MANIFEST_FILE}: cannot write: {reason}; {recovery}") from None


def episode_config(manifest: RunManifest, seed: int) -> EpisodeConfig:
    """The episode configuration of one unit of the run."""
    return manifest.episode.model_copy(update={"seed": seed})


async def simulate(
    prepared: PreparedRun, unit: Unit, turn_delay_s: float = 0.0, judge: NLJudge | None = None
) -> SimulationRecord:
    """Run one unit with fresh actors (and the run's judge, shared so its verdict cache spans the run); a
    failure of the framework itself becomes an infrastructure record."""
    manifest = prepared.manifest
    task = prepared.tasks[unit.task_id]
    config = episode_config(manifest, unit.seed)
    try:
        agent = make_actor(manifest.agent, Side.AGENT, manifest.mode)
        user = None if manifest.user is None else make_actor(manifest.user, Side.USER, manifest.mode)
        if turn_delay_s > 0:
            agent = Slowed(agent, turn_delay_s)
            user = None if user is None else Slowed(user, turn_delay_s)
        result = await run_episode(
            task,
            agent,
            user,
            config,
            data_dir=prepared.data_dir,
            agent_label=manifest.agent.label(),
            user_label=None if manifest.user is None else manifest.user.label(),
            judge=judge,
        )
    except AuthenticationError:
        raise  # no simulation of the run can succeed: the executor stops the run
    except Exception as error:
        return crash_record(task, unit.trial, config, error, run_id=manifest.run_id)
    return episode_record(task, unit.trial, result, run_id=manifest.run_id)


class Slowed:
    """An actor that waits before every turn: lets tests catch a run of fast offline actors mid-flight."""

    def __init__(self, actor: Actor, delay_s: float) -> None:
        self._actor = actor
        self._delay_s = delay_s

    async def start(self, context: SeatContext) -> None:
        """Start the wrapped actor."""
        await self._actor.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Sleep, then let the wrapped actor take its turn."""
        await asyncio.sleep(self._delay_s)
        return await self._actor.act(observation)
