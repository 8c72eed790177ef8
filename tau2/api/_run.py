"""Starting or resuming a run from Python: `run` and `arun` take a `RunConfig`; the command line goes
through the same steps with the settings its options and configuration file give."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tau2.actors import pairing_warning
from tau2.api._result import RunResult
from tau2.config import ConfigLayer, RunConfig
from tau2.runner import PreparedRun, RunProgress, drive, prepare_run
from tau2.runs import PYTHON, DirectoryWords, RunDirectoryLock


@dataclass(frozen=True)
class OpenRun:
    """A run prepared in its locked directory, ready to simulate."""

    prepared: PreparedRun
    progress: RunProgress
    warnings: list[str]

    async def execute(self) -> RunResult:
        """Simulate the pending units, appending each record as it ends; the run's results."""
        totals = await drive(self.prepared, self.progress)
        return RunResult(self.prepared.run_dir, self.prepared.manifest, self.warnings, totals)


@contextmanager
def open_run(
    layers: Sequence[ConfigLayer],
    out: Path,
    *,
    resume: bool,
    progress: RunProgress | None = None,
    words: DirectoryWords = PYTHON,
) -> Iterator[OpenRun]:
    """Claim `out` (no other run may use it meanwhile), prepare the run the settings in `layers` describe
    (over the stored run's configuration with `resume`) and pass its warnings to `progress`; a refused
    directory says the ways on in `words` (the Python API's arguments, or the command line's options)."""
    progress = progress or RunProgress()
    with RunDirectoryLock(out, words) as lock:
        lock.acquire()  # before anything in the directory is read or written
        prepared = prepare_run(layers, out, resume=resume, words=words)
        manifest = prepared.manifest
        pairing = pairing_warning(manifest.agent, manifest.user)
        warnings = [*prepared.warnings, *([pairing] if pairing else [])]
        for warning in warnings:
            progress.warning(warning)
        yield OpenRun(prepared, progress, warnings)


def run(
    config: RunConfig, out: str | Path, *, progress: RunProgress | None = None, resume: bool = False
) -> RunResult:
    """Run `config` into the new directory `out`, or with `resume` continue the run stored there: the
    settings `config` was given explicitly must match the stored ones (trials may grow, concurrency,
    rate limits and executor may change), the others are taken from it. Blocks until the run ends."""
    with open_run([ConfigLayer.of(config)], Path(out), resume=resume, progress=progress) as started:
        return asyncio.run(started.execute())


async def arun(
    config: RunConfig, out: str | Path, *, progress: RunProgress | None = None, resume: bool = False
) -> RunResult:
    """`run` on the running event loop."""
    with open_run([ConfigLayer.of(config)], Path(out), resume=resume, progress=progress) as started:
        return await started.execute()
