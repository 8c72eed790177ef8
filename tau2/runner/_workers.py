"""Executing a prepared run on worker processes: each worker runs its own event loop with many simulations
in flight, and the driver stays the run's single writer.

The driver hands units to workers over pipes, `concurrency` split evenly between them,
and writes each record the moment a worker sends it back. A worker that dies (killed, crashed) loses only
its simulations in flight: the driver hands them to a replacement worker, so nothing is lost and nothing is
written twice. A driver that dies loses what was in flight, like a single-process run, and its workers stop
as soon as their pipe closes; `--resume` picks up from the store.

Processes are started with `spawn`, so actor kinds registered at run time in the driver (rather than by an
imported module) are unknown to workers.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import queue
import threading
from collections.abc import Mapping
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
from tau2.runner._driver import Driver
from tau2.runner._execute import judge_of, simulate
from tau2.runner._plan import Unit
from tau2.runner._prepare import PreparedRun
from tau2.runs import SimulationRecord

_DONE = b""
"""Driver to worker: no more units; finish the ones in flight and exit."""
_USAGE = b"U"
"""Worker to driver, before a JSON `UsageDelta`: the tokens and cost of the calls made since the last one."""
_REFUSED = b"!"
"""Worker to driver, before the error's text: the provider refused the credentials; stop the run."""

USAGE_REPORT_S = 0.25
"""Seconds between a worker's usage reports: live enough for the bar (which refreshes 4 times a second)
at a handful of messages per second, whatever the call rate."""

RESTARTS_PER_WORKER = 3
"""Replacement workers started per requested worker before the run gives up."""


class WorkerSetup(BaseModel):
    """What a worker process needs besides its units: the run, its share of the limits, the retry policy."""

    model_config = ConfigDict(frozen=True)

    prepared: PreparedRun
    limits: dict[str, ProviderLimit]
    retry: RetryPolicy

    @classmethod
    def of(cls, prepared: PreparedRun) -> WorkerSetup:
        """What each of the run's workers gets: the run without its records and units (those travel one
        by one), its share of the rate limits, and the retry policy in force here."""
        return cls(
            prepared=prepared.model_copy(update={"previous": []}),
            limits=split_limits(prepared.config.rate_limits, prepared.config.executor.workers),
            retry=current_settings().retry,
        )


class UsageDelta(BaseModel):
    """Tokens and cost of the model calls a worker made since its last report."""

    tokens: int = 0
    cost: float = 0.0
    """Priced cost in USD."""
    unpriced: int = 0
    """Unpriced calls."""


class UsageMeter:
    """Sums a worker's model calls between reports: a few additions per call, no lock (one loop)."""

    def __init__(self) -> None:
        self._tokens = 0
        self._cost = 0.0
        self._unpriced = 0

    def __call__(self, label: str, usage: Usage) -> None:
        self._tokens += usage.prompt_tokens + usage.completion_tokens
        if usage.cost is None:
            self._unpriced += 1
        else:
            self._cost += usage.cost

    def take(self) -> UsageDelta | None:
        """What was counted since the last take, or None if nothing."""
        if not (self._tokens or self._unpriced or self._cost):
            return None
        delta = UsageDelta(tokens=self._tokens, cost=self._cost, unpriced=self._unpriced)
        self._tokens, self._cost, self._unpriced = 0, 0.0, 0
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

    async def run(unit: Unit) -> None:
        try:
            record = await simulate(setup.prepared, unit, judge_of(setup.prepared.manifest))
        except AuthenticationError as error:
            outbox.send(_REFUSED + str(error).encode())
            return
        report_usage()  # the record's calls reach the bar no later than the record
        outbox.send(record.model_dump_json().encode())

    loop.add_reader(connection.fileno(), readable)
    reporter = asyncio.create_task(report_usage_often())
    with call_settings(retry=setup.retry, on_usage=meter):
        async with asyncio.TaskGroup() as group:
            while True:
                message = await incoming.get()
                if message is None:
                    raise SystemExit(1)  # the driver is gone: nobody can write these records
                if message == _DONE:
                    break
                group.create_task(run(Unit.model_validate_json(message)))
    reporter.cancel()
    report_usage()
    await asyncio.to_thread(outbox.close)


@dataclass
class _Worker:
    """The driver's view of one worker process."""

    process: BaseProcess
    connection: Connection
    outbox: Outbox
    slots: int
    """Simulations this worker keeps in flight."""
    assigned: dict[tuple[str, int], Unit] = field(default_factory=dict)
    closing: bool = False


async def execute_on_workers(prepared: PreparedRun, driver: Driver) -> None:
    """Simulate every pending unit on `prepared.config.executor.workers` processes, handing each record to
    the driver as it comes back; the run's concurrency and per-provider limits are split evenly between
    the workers."""
    pending = prepared.pending()
    if not pending:
        return
    workers = prepared.config.executor.workers
    setup = WorkerSetup.of(prepared)
    driver.follow_calls()  # the workers report their calls' usage as they go
    loop = asyncio.get_running_loop()
    finished = loop.create_future()
    context = multiprocessing.get_context("spawn")
    live: list[_Worker] = []
    restarts = RESTARTS_PER_WORKER * workers

    def start(slots: int) -> None:
        ours, theirs = context.Pipe(duplex=True)
        process = context.Process(target=worker_main, args=(theirs, setup), daemon=True)
        process.start()
        theirs.close()
        worker = _Worker(process, ours, Outbox(ours), slots)
        live.append(worker)
        loop.add_reader(ours.fileno(), receive, worker)
        feed(worker)

    def feed(worker: _Worker) -> None:
        while len(worker.assigned) < worker.slots and pending:
            unit = pending.take()
            worker.assigned[(unit.task_id, unit.trial)] = unit
            worker.outbox.send(unit.model_dump_json().encode())
            driver.unit_started()
        if not pending and not worker.assigned and not worker.closing:
            worker.closing = True
            worker.outbox.send(_DONE)

    def receive(worker: _Worker) -> None:
        try:
            while worker.connection.poll():
                message = worker.connection.recv_bytes()
                if message.startswith(_USAGE):
                    delta = UsageDelta.model_validate_json(message[len(_USAGE) :])
                    driver.calls_elsewhere(delta.tokens, delta.cost, delta.unpriced)
                    continue
                if message.startswith(_REFUSED):
                    raise AuthenticationError(message[len(_REFUSED) :].decode())
                record = SimulationRecord.model_validate_json(message)
                del worker.assigned[(record.task_id, record.trial)]
                driver.unit_finished(record)
        except (EOFError, OSError):
            retire(worker)
            return
        except Exception as error:  # a broken writer or a malformed record: stop the run
            if not finished.done():
                finished.set_exception(error)
            return
        feed(worker)

    def retire(worker: _Worker) -> None:
        """A worker's pipe closed: it exited, or died with units that go back to the queue."""
        nonlocal restarts
        loop.remove_reader(worker.connection.fileno())
        worker.connection.close()
        worker.outbox.close()
        live.remove(worker)
        lost = list(worker.assigned.values())
        for _ in lost:
            driver.unit_abandoned()
        pending.hand_back(lost)
        if pending:
            if restarts == 0:
                if not live and not finished.done():
                    finished.set_exception(RuntimeError("worker processes keep dying; the run stopped"))
                return
            restarts -= 1
            start(worker.slots)
            for other in live:
                feed(other)
        elif not live and not finished.done():
            finished.set_result(None)

    try:
        for slots in split_concurrency(min(prepared.config.concurrency, len(pending)), workers):
            start(slots)
        await finished
    finally:
        for worker in list(live):
            loop.remove_reader(worker.connection.fileno())
            if worker.process.is_alive():
                worker.process.terminate()
            worker.connection.close()
            worker.outbox.close()
        for worker in live:
            await asyncio.to_thread(worker.process.join, 10)
