"""Executing runs on worker processes: each worker runs its own event loop with many simulations in flight,
and the driver stays every run's single writer.

The driver's lanes hand units to workers over pipes, `concurrency` split evenly between them, and the
driver writes each record the moment a worker sends it back. A worker that dies (killed, crashed) loses
only its simulations in flight: the driver hands them to a replacement worker, so nothing is lost and
nothing is written twice. A driver that dies loses what was in flight, like a single-process run, and its
workers stop as soon as their pipe closes; `--resume` picks up from the store.

Processes are started with `spawn`, so actor kinds registered at run time in the driver (rather than by an
imported module) are unknown to workers.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import queue
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from pydantic import BaseModel, ConfigDict

from tau2.errors import UserInputError
from tau2.llm import (
    AuthenticationError,
    ProviderLimit,
    RetryPolicy,
    Usage,
    call_settings,
    current_settings,
    default_limits,
)
from tau2.runner._execute import judge_of, model_cache, simulate
from tau2.runner._lanes import WorkerLost, run_lanes
from tau2.runner._plan import ArmUnit, UnitStream
from tau2.runner._prepare import PreparedRun
from tau2.runner._recorder import Recorder
from tau2.runs import SimulationRecord

_DONE = b""
"""Driver to worker: no more units; finish the ones in flight and exit. Every other message to a worker is
a unit: its number, a newline, then the `ArmUnit` as `ArmUnit.dump` writes it."""
_RECORD = b"R"
"""Worker to driver, before the unit's number, a newline and the record as JSON."""
_USAGE = b"U"
"""Worker to driver, before a JSON `UsageDelta`: the tokens and cost of the calls made since the last one."""
_REFUSED = b"!"
"""Worker to driver, before the unit's number, a newline and the error's text: the provider refused the
credentials; stop the run."""

USAGE_REPORT_S = 0.25
"""Seconds between a worker's usage reports: live enough for the bar (which refreshes 4 times a second)
at a handful of messages per second, whatever the call rate."""

RESTARTS_PER_WORKER = 3
"""Replacement workers started per requested worker before the run gives up."""

JOIN_S = 10.0
"""Seconds a worker told it is done may take to exit before it is terminated."""


class WorkerSetup(BaseModel):
    """What a worker process needs besides its units: the runs, its share of the limits, the retry policy."""

    model_config = ConfigDict(frozen=True)

    runs: list[PreparedRun]
    limits: dict[str, ProviderLimit]
    retry: RetryPolicy

    @classmethod
    def of(cls, runs: Sequence[PreparedRun]) -> WorkerSetup:
        """What each worker gets: the runs without their records and units (those travel one by one), its
        share of the rate limits, and the retry policy in force here."""
        settings = runs[0].config
        return cls(
            runs=[run.model_copy(update={"previous": []}) for run in runs],
            limits=split_limits(settings.rate_limits, settings.executor.workers),
            retry=current_settings().retry,
        )


class UsageDelta(BaseModel):
    """Tokens and cost of the model calls a worker made since its last report."""

    tokens: int = 0
    cost: float = 0.0
    """Priced cost spent in USD."""
    unpriced: int = 0
    """Unpriced calls."""
    cached: int = 0
    """Calls the model cache answered."""
    saved: float = 0.0
    """What those answers cost when first asked (USD)."""


class UsageMeter:
    """Sums a worker's model calls between reports: a few additions per call, no lock (one loop)."""

    def __init__(self) -> None:
        self._delta = UsageDelta()

    def __call__(self, label: str, usage: Usage) -> None:
        delta = self._delta
        delta.tokens += usage.prompt_tokens + usage.completion_tokens
        spent = usage.spent
        if spent is None:
            delta.unpriced += 1
        else:
            delta.cost += spent
        delta.cached += usage.cached_calls
        delta.saved += usage.cached_cost

    def take(self) -> UsageDelta | None:
        """What was counted since the last take, or None if nothing."""
        delta = self._delta
        if delta == UsageDelta():
            return None
        self._delta = UsageDelta()
        return delta


def split_limits(limits: Mapping[str, ProviderLimit], workers: int) -> dict[str, ProviderLimit]:
    """Each worker's share of per-provider limits, so that all workers together stay within them."""
    shares: dict[str, ProviderLimit] = {}
    for key, limit in limits.items():
        too_tight = limit.max_concurrent < workers or (
            limit.requests_per_minute is not None and limit.requests_per_minute < workers
        )
        if too_tight:
            raise UserInputError(
                f"--rate-limit {key}: cannot be split over {workers} workers (each needs at least one "
                "concurrent request and one request per minute); use fewer --workers"
            )
        shares[key] = ProviderLimit(
            max_concurrent=limit.max_concurrent // workers,
            requests_per_minute=None
            if limit.requests_per_minute is None
            else limit.requests_per_minute // workers,
        )
    return shares


class Outbox:
    """Sends messages on a connection from a background thread, in order, so a full pipe never blocks the
    event loop: the driver and a worker each writing to a full pipe the other has stopped reading would
    otherwise deadlock."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="tau2-outbox", daemon=True)
        self._thread.start()

    def send(self, message: bytes) -> None:
        """Queue `message`; it is sent after every message queued before it."""
        self._queue.put(message)

    def close(self) -> None:
        """Stop after the queued messages, and wait until they are sent (or the pipe is gone)."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (message := self._queue.get()) is not None:
            try:
                self._connection.send_bytes(message)
            except OSError:  # the other side went away; what it would have read is lost with it
                return


def split_concurrency(concurrency: int, workers: int) -> list[int]:
    """Simulations in flight per worker, as even as possible, summing to `concurrency`; a worker with
    nothing to do is not started."""
    return [
        share
        for index in range(workers)
        if (share := concurrency // workers + (index < concurrency % workers))
    ]


def worker_main(connection: Connection, setup: WorkerSetup) -> None:
    """A worker process: simulate the units the driver sends until it says it is done or goes away."""
    asyncio.run(_work(connection, setup))


async def _work(connection: Connection, setup: WorkerSetup) -> None:
    for key, limit in setup.limits.items():
        default_limits().configure(key, limit)
    loop = asyncio.get_running_loop()
    incoming: asyncio.Queue[bytes | None] = asyncio.Queue()

    def readable() -> None:
        try:
            while connection.poll():
                incoming.put_nowait(connection.recv_bytes())
        except (EOFError, OSError):  # the driver went away
            loop.remove_reader(connection.fileno())
            incoming.put_nowait(None)

    outbox = Outbox(connection)
    meter = UsageMeter()

    def report_usage() -> None:
        delta = meter.take()
        if delta is not None:
            outbox.send(_USAGE + delta.model_dump_json().encode())

    async def report_usage_often() -> None:
        while True:
            await asyncio.sleep(USAGE_REPORT_S)
            report_usage()

    async def run(number: bytes, item: ArmUnit) -> None:
        prepared = setup.runs[item.arm]
        try:
            record = await simulate(prepared, item.unit, judge_of(prepared.manifest))
        except AuthenticationError as error:
            outbox.send(_REFUSED + number + b"\n" + str(error).encode())
            return
        report_usage()  # the record's calls reach the bar no later than the record
        outbox.send(_RECORD + number + b"\n" + record.model_dump_json().encode())

    loop.add_reader(connection.fileno(), readable)
    reporter = asyncio.create_task(report_usage_often())
    with call_settings(retry=setup.retry, on_usage=meter, cache=model_cache(setup.runs)):
        async with asyncio.TaskGroup() as group:
            while True:
                message = await incoming.get()
                if message is None:
                    raise SystemExit(1)  # the driver is gone: nobody can write these records
                if message == _DONE:
                    break
                number, _, unit = message.partition(b"\n")
                group.create_task(run(number, ArmUnit.load(unit)))
    reporter.cancel()
    report_usage()
    await asyncio.to_thread(outbox.close)


@dataclass
class _Worker:
    """The driver's view of one worker process."""

    process: BaseProcess
    connection: Connection
    outbox: Outbox
    answers: dict[int, asyncio.Future[bytes]] = field(default_factory=dict)
    """The units sent to it and not yet answered, by number: each lane awaits its own."""


class WorkerPool:
    """The driver's worker processes, one per slot, each replaced when it dies (at most
    `RESTARTS_PER_WORKER` times per worker over the run, after which the run stops)."""

    def __init__(self, setup: WorkerSetup, workers: int, recorder: Recorder) -> None:
        self._setup = setup
        self._recorder = recorder
        self._loop = asyncio.get_running_loop()
        self._context = multiprocessing.get_context("spawn")
        self._numbers = itertools.count()
        self._restarts = RESTARTS_PER_WORKER * workers
        self._given_up: RuntimeError | None = None
        self._closing = False
        self._workers: list[_Worker | None] = [None] * workers
        for index in range(workers):
            self._start(index)

    async def simulate(self, index: int, item: ArmUnit) -> SimulationRecord:
        """Simulate `item` on worker `index`: its record, or `WorkerLost` when the worker died first."""
        worker = self._workers[index]
        if worker is None:
            assert self._given_up is not None
            raise self._given_up
        number = next(self._numbers)
        answer = worker.answers[number] = self._loop.create_future()
        worker.outbox.send(b"%d\n" % number + item.dump())
        return SimulationRecord.model_validate_json(await answer)

    async def close(self, *, done: bool) -> None:
        """Stop every worker: told it is done, each finishes and exits (`done`: every unit was answered),
        else, or after `JOIN_S`, it is terminated; returns once all have exited."""
        self._closing = True
        live = [(index, worker) for index, worker in enumerate(self._workers) if worker is not None]
        if done:
            for _, worker in live:
                worker.outbox.send(_DONE)
            for _, worker in live:
                await asyncio.to_thread(worker.process.join, JOIN_S)
        for index, worker in live:
            if self._workers[index] is worker:
                self._release(index, worker)
            if worker.process.is_alive():
                worker.process.terminate()
        for _, worker in live:
            await asyncio.to_thread(worker.process.join, JOIN_S)

    def _start(self, index: int) -> None:
        ours, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(target=worker_main, args=(theirs, self._setup), daemon=True)
        process.start()
        theirs.close()
        worker = self._workers[index] = _Worker(process, ours, Outbox(ours))
        self._loop.add_reader(ours.fileno(), self._receive, index, worker)

    def _receive(self, index: int, worker: _Worker) -> None:
        try:
            while worker.connection.poll():
                message = worker.connection.recv_bytes()
                kind, body = message[:1], message[1:]
                if kind == _USAGE:
                    delta = UsageDelta.model_validate_json(body)
                    self._recorder.calls_elsewhere(
                        delta.tokens, delta.cost, delta.unpriced, delta.cached, delta.saved
                    )
                    continue
                number, _, payload = body.partition(b"\n")
                answer = worker.answers.pop(int(number))
                if answer.done():  # its lane was cancelled
                    continue
                if kind == _REFUSED:
                    answer.set_exception(AuthenticationError(payload.decode()))
                else:
                    answer.set_result(payload)
        except (EOFError, OSError):
            self._retire(index, worker)
        except Exception as error:  # a message out of protocol: stop the run
            self._fail(worker, error)

    def _retire(self, index: int, worker: _Worker) -> None:
        """A worker's pipe closed: it exited, or died with units whose lanes hear they were lost; a
        replacement takes its place while restarts are left."""
        if self._workers[index] is not worker:
            return
        self._release(index, worker)
        self._fail(worker, WorkerLost())
        if self._closing:
            return
        if self._restarts == 0:
            self._given_up = RuntimeError("worker processes keep dying; the run stopped")
            return
        self._restarts -= 1
        self._start(index)

    def _release(self, index: int, worker: _Worker) -> None:
        """Read no more from a worker and close its pipe."""
        self._workers[index] = None
        self._loop.remove_reader(worker.connection.fileno())
        worker.connection.close()
        worker.outbox.close()

    @staticmethod
    def _fail(worker: _Worker, error: Exception) -> None:
        """End every lane waiting on `worker` with `error`."""
        for answer in worker.answers.values():
            if not answer.done():
                answer.set_exception(error)
        worker.answers.clear()


async def execute_on_workers(runs: Sequence[PreparedRun], units: UnitStream, recorder: Recorder) -> None:
    """Simulate the stream's units on the runs' `executor.workers` processes, handing each record to the
    recorder as it comes back; the concurrency and per-provider limits are split evenly between the
    workers, and every worker shares the model cache."""
    settings = runs[0].config
    slots = split_concurrency(min(settings.concurrency, len(units)), settings.executor.workers)
    if not slots:
        return
    setup = WorkerSetup.of(runs)
    recorder.follow_calls()  # the workers report their calls' usage as they go
    pool = WorkerPool(setup, len(slots), recorder)
    done = False
    try:
        await run_lanes(slots, units, recorder, pool.simulate)
        done = True
    finally:
        await pool.close(done=done)
