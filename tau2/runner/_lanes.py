"""The one interface every executor implements, and the one loop they all run: lanes that take units from
the stream, have each simulated where the executor runs simulations (this event loop, a worker process, a
Ray actor), and hand its record to the recorder; a unit whose worker died goes back to the stream."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from tau2.errors import UserInputError
from tau2.llm import AuthenticationError
from tau2.runner._plan import ArmUnit, UnitStream
from tau2.runner._prepare import PreparedRun
from tau2.runner._recorder import Recorder
from tau2.runs import SimulationRecord


class Executor(Protocol):
    """Simulates the units of `units`, each of the run it is tagged with (`runs[item.arm]`), handing every
    record to the recorder as it ends. Three implementations, one per `ExecutorConfig.kind`: one event loop
    in this process, worker processes, Ray actors; the runs share one executor, whose settings
    (concurrency, rate limits, workers, model cache) are read from the first run's configuration."""

    async def __call__(self, runs: Sequence[PreparedRun], units: UnitStream, recorder: Recorder) -> None: ...


class WorkerLost(Exception):
    """The worker simulating a unit died before it answered: the unit runs again."""


Simulate = Callable[[int, ArmUnit], Awaitable[SimulationRecord]]
"""Simulates a unit on the worker of the given index (the lanes' executor has its own notion of worker:
one for the local executor), returning its record or raising `WorkerLost`."""


async def run_lanes(slots: Sequence[int], units: UnitStream, recorder: Recorder, simulate: Simulate) -> None:
    """Run `slots[i]` lanes on worker `i`, each taking units until the stream has no more. Refused
    credentials stop every lane and raise `AuthenticationError` alone; any other failure stops them and
    is raised alone too, when it is the only one; cancelling stops the simulations in flight, the records
    already finished written."""

    async def lane(worker: int) -> None:
        while (item := await units.take()) is not None:
            recorder.unit_started()
            try:
                record = await simulate(worker, item)
            except WorkerLost:
                recorder.unit_abandoned()
                units.hand_back(item)
                continue
            except BaseException:
                recorder.unit_abandoned()
                raise
            recorder.unit_finished(item.arm, record)
            units.done(item, record)
            await recorder.room()

    with one_failure():
        async with asyncio.TaskGroup() as group:
            for worker, share in enumerate(slots):
                for _ in range(share):
                    group.create_task(lane(worker))


@contextmanager
def one_failure() -> Iterator[None]:
    """Let a task group that failed raise one exception, as a single-task failure would (one line for
    the CLI): refused credentials first (no other simulation could succeed), else a failure that is the
    group's only one, or the first when every one is bad input (a check plugin failing in several lanes);
    several other failures stay a group."""
    try:
        yield
    except BaseExceptionGroup as failures:
        refused = failures.subgroup(AuthenticationError)
        if refused is not None:
            raise _first(refused) from None
        flat = list(_leaves(failures))
        if len(flat) == 1 or all(isinstance(found, UserInputError) for found in flat):
            raise flat[0] from None
        raise


def _first(group: BaseExceptionGroup[AuthenticationError]) -> AuthenticationError:
    """The first exception of a (possibly nested) group."""
    found = group.exceptions[0]
    return found if isinstance(found, AuthenticationError) else _first(found)


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    """Every exception of a (possibly nested) group."""
    for found in group.exceptions:
        if isinstance(found, BaseExceptionGroup):
            yield from _leaves(found)
        else:
            yield found
