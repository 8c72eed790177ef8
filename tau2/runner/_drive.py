"""Driving a prepared run: its manifest written first, then its pending units simulated on the executor
its configuration chooses, every record appended by this process alone."""

from __future__ import annotations

from typing import Final

from tau2.config import ExecutorKind
from tau2.runner._driver import Driver, Executor
from tau2.runner._execute import ensure_manifest, execute_locally, stop_on_refusal
from tau2.runner._prepare import PreparedRun
from tau2.runner._progress import RunProgress, Tally
from tau2.runner._ray_workers import execute_on_ray
from tau2.runner._summary import RunTotals
from tau2.runner._workers import execute_on_workers
from tau2.runs import RESULTS_FILE, RecordWriter

EXECUTORS: Final[dict[ExecutorKind, Executor]] = {
    "local": execute_locally,
    "workers": execute_on_workers,
    "ray": execute_on_ray,
}
"""The executor of each `ExecutorConfig.kind`."""


async def drive(prepared: PreparedRun, progress: RunProgress) -> RunTotals:
    """Write the manifest if it is new or changed, then simulate every pending unit, appending each record
    the moment it arrives and reporting to `progress`; returns what the run's summary shows, counted as
    the records went by. Refused credentials stop the run with the `AuthenticationError` alone; cancelling
    stops it after writing what had finished."""
    ensure_manifest(prepared)
    manifest = prepared.manifest
    total = len(manifest.task_ids) * manifest.trials
    tally = Tally(total, prepared.previous)
    totals = RunTotals.resumed(total, prepared.previous)
    progress.begin(tally)
    try:
        async with RecordWriter(prepared.run_dir / RESULTS_FILE) as writer:
            driver = Driver(writer, tally, progress, totals)
            with stop_on_refusal():
                await EXECUTORS[prepared.config.executor.kind](prepared, driver)
    finally:
        progress.end(tally)
    return totals
