"""Writing run directories for simulations that did not come from `tau2 run` (a person's play session, an
imported τ²-bench results file): the same manifest, suite and results store, so every report reads them."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final

from tau2._jsonfile import json_line
from tau2.config import RunConfig
from tau2.errors import UserInputError
from tau2.runner._manifest import new_run_identity, package_versions, sha256_bytes
from tau2.runs import RESULTS_FILE, RunManifest, SimulationRecord
from tau2.tasks import Suite, Task

SUITE_FILE: Final = "suite.json"
"""The tasks of the run, saved inside the run directory so it stands on its own."""


def check_new_run_dir(run_dir: Path) -> None:
    """Refuse an output directory that already holds anything (or is a file): nothing is overwritten."""
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise UserInputError(f"{run_dir}: not empty; choose another output directory")


class NewRun:
    """A new run directory written record by record, its suite and manifest last (a directory without a
    manifest is no run yet). Used as a context manager: if anything fails before `finish`, every file it
    wrote is removed again (and the directory, when it made it), so a failed import leaves nothing."""

    def __init__(self, run_dir: Path) -> None:
        check_new_run_dir(run_dir)
        self.run_dir = run_dir
        self.identity: dict[str, Any] = new_run_identity()
        self._made_dir = not run_dir.exists()
        self._results: IO[str] | None = None
        self._finished = False

    def __enter__(self) -> NewRun:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._results = (self.run_dir / RESULTS_FILE).open("w", encoding="utf-8", newline="\n")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._results is not None:
            self._results.close()
        if self._finished:
            return
        if self._made_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)
        else:  # the directory was there and empty: empty it again
            for path in self.run_dir.iterdir():
                shutil.rmtree(path) if path.is_dir() else path.unlink()

    def path(self, name: str) -> Path:
        """A file of the run directory; anything written there is removed with the rest on failure."""
        return self.run_dir / name

    def append(self, record: SimulationRecord) -> None:
        """Add one record (stamped with the run's id) to the results store."""
        assert self._results is not None, "use NewRun as a context manager"
        stamped = record.model_copy(update={"run_id": self.identity["run_id"]})
        self._results.write(json_line(stamped.model_dump_json()) + "\n")

    def finish(
        self,
        *,
        tasks: list[Task],
        task_ids: list[str],
        config: RunConfig,
        hashes: dict[str, str] | None = None,
    ) -> RunManifest:
        """Save the suite and the manifest, whose configuration is `config` on the saved suite (paths
        absolute): the run is complete and readable from here on."""
        assert self._results is not None, "use NewRun as a context manager"
        self._results.close()
        suite_path = self.run_dir / SUITE_FILE
        domain = tasks[0].domain
        Suite(name=self.run_dir.name or "run", domain=domain, tasks=tasks).save(suite_path)
        data_dir = config.data_dir
        saved = config.model_copy(
            update={
                "suite": suite_path.resolve(),
                "domain": domain,
                "data_dir": None if data_dir is None else data_dir.resolve(),
            }
        )
        manifest = RunManifest(
            **self.identity,
            config=saved,
            suite_path=str(suite_path.resolve()),
            suite_hash=sha256_bytes(suite_path.read_bytes()),
            domain=domain,
            task_ids=task_ids,
            versions=package_versions(),
            hashes=hashes or {},
        )
        manifest.save(self.run_dir)
        self._finished = True
        return manifest


def write_run(
    run_dir: Path, *, tasks: list[Task], config: RunConfig, records: Iterable[SimulationRecord]
) -> RunManifest:
    """Save the suite, the manifest (of `config`) and the records into the (new, empty) `run_dir`; returns
    the manifest."""
    with NewRun(run_dir) as run:
        task_ids: dict[str, None] = {}
        for record in records:
            run.append(record)
            task_ids[record.task_id] = None
        return run.finish(tasks=tasks, task_ids=list(task_ids), config=config)
