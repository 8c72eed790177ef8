"""Driving several prepared runs (an experiment's arms) through one executor: their units interleave on one
event loop under one concurrency, and each record is appended by the driver to its own run's store."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import NamedTuple

from tau2.llm import call_settings, default_limits
from tau2.runner._driver import Driver
from tau2.runner._execute import ensure_manifest, judge_of, simulate, stop_on_refusal
from tau2.runner._plan import Unit
from tau2.runner._prepare import PreparedRun
from tau2.runner._progress import RunProgress, Tally
from tau2.runs import RESULTS_FILE, RecordWriter, SimulationRecord


class ArmUnit(NamedTuple):
    """One simulation of one of several runs: the run's index and the unit."""

    arm: int
    unit: Unit


class ArmsDriver:
    """Simulates units of several prepared runs on this event loop, handing each record to its run's
    driver (the single writer of that run's store)."""

    def __init__(self, runs: Sequence[PreparedRun], drivers: Sequence[Driver], concurrency: int) -> None:
        self._runs = runs
        self._drivers = drivers
        self._concurrency = concurrency

    async def run(
        self,
        units: Sequence[ArmUnit],
        *,
        admit: Callable[[ArmUnit], bool] = lambda unit: True,
        finished: Callable[[ArmUnit, SimulationRecord], None] = lambda unit, record: None,
    ) -> list[ArmUnit]:
        """Simulate `units` in their order, `concurrency` at a time, asking `admit` before starting each
        (False: start no more of them); `finished` hears of every record once it is written. Returns the units
        not started. Refused credentials stop every run and raise `AuthenticationError`; cancelling stops
        the simulations in flight, the records already finished written."""
        pending = deque(units)
        refused = False

        async def worker() -> None:
            nonlocal refused
            while pending and not refused:
                if not admit(pending[0]):
                    refused = True
                    return
                item = pending.popleft()
                driver = self._drivers[item.arm]
                driver.unit_started()
                run = self._runs[item.arm]
                record = await simulate(run, item.unit, judge_of(run.manifest))
                driver.unit_finished(record)
                finished(item, record)
                await driver.room()

        with call_settings(on_usage=self._drivers[0].follow_calls()), stop_on_refusal():
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self._concurrency, len(pending))):
                    group.create_task(worker())
        return list(pending)


@asynccontextmanager
async def drive_arms(
    runs: Sequence[PreparedRun], tally: Tally, progress: RunProgress
) -> AsyncIterator[ArmsDriver]:
    """Write every run's manifest that is new or changed, open every run's store, and yield the driver
    of their units, with the first run's concurrency and rate limits; `tally` counts all of them."""
    for run in runs:
        ensure_manifest(run)
    settings = runs[0].config
    for key, limit in settings.rate_limits.items():
        default_limits().configure(key, limit)
    progress.begin(tally)
    try:
        async with AsyncExitStack() as stack:
            writers = [
                await stack.enter_async_context(RecordWriter(run.run_dir / RESULTS_FILE)) for run in runs
            ]
            drivers = [Driver(writer, tally, progress) for writer in writers]
            yield ArmsDriver(runs, drivers, settings.concurrency)
    finally:
        progress.end(tally)
