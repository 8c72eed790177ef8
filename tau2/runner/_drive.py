"""Driving runs: their manifests written first, then their units simulated on the executor their
configuration chooses, every record appended by this process alone to its own run's store. A plain run is
driven as the only run of its stream; an experiment's arms are driven together."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Final

from tau2.config import ExecutorKind
from tau2.runner._execute import ensure_manifest, execute_locally
from tau2.runner._lanes import Executor
from tau2.runner._plan import RunUnits, UnitStream
from tau2.runner._prepare import PreparedRun
from tau2.runner._progress import RunProgress, Tally
from tau2.runner._ray_workers import execute_on_ray
from tau2.runner._recorder import Recorder
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
    manifest = prepared.manifest
    tally = Tally(len(manifest.task_ids) * manifest.trials, prepared.previous)
    (totals,) = await drive_runs([prepared], RunUnits(prepared.pending()), tally, progress)
    return totals


async def drive_runs(
    runs: Sequence[PreparedRun], units: UnitStream, tally: Tally, progress: RunProgress
) -> list[RunTotals]:
    """Write every run's manifest that is new or changed, then simulate the units of `units` (each tagged
    with its run's index in `runs`) on the executor the runs share (set by the first run's configuration),
    appending each record to its own run's store the moment it arrives; `tally` counts every run and
    `progress` hears of it. Returns each run's summary totals, counted as the records went by."""
    for run in runs:
        ensure_manifest(run)
    totals = [
        RunTotals.resumed(len(run.manifest.task_ids) * run.manifest.trials, run.previous) for run in runs
    ]
    progress.begin(tally)
    try:
        async with AsyncExitStack() as stack:
            writers = [
                await stack.enter_async_context(RecordWriter(run.run_dir / RESULTS_FILE)) for run in runs
            ]
            recorder = Recorder(writers, tally, progress, totals)
            await EXECUTORS[runs[0].config.executor.kind](runs, units, recorder)
    finally:
        progress.end(tally)
    return totals
