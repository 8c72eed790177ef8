"""Writing run directories for simulations that did not come from `tau2 run` (a person's play session, an
imported τ²-bench results file): the same manifest, suite and results store, so every report reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tau2 import ActorSpec, EpisodeConfig, Mode, SimulationRecord, Suite, Task, UserInputError
from tau2._jsonfile import json_line
from tau2.runner import new_run_identity, package_versions, sha256_bytes
from tau2.runs import RESULTS_FILE, RunManifest

SUITE_FILE: Final = "suite.json"
"""The tasks of the run, saved inside the run directory so it stands on its own."""


def check_new_run_dir(run_dir: Path) -> None:
    """Refuse an output directory that already holds anything (or is a file): nothing is overwritten."""
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise UserInputError(f"{run_dir}: not empty; choose another output directory")


def write_run(
    run_dir: Path,
    *,
    tasks: list[Task],
    mode: Mode,
    agent: ActorSpec,
    user: ActorSpec | None,
    config: EpisodeConfig,
    trials: int = 1,
    seed: int = 0,
    records: list[SimulationRecord],
) -> RunManifest:
    """Save the suite, the manifest and the records into the (new, empty) `run_dir`; returns the manifest."""
    check_new_run_dir(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    suite_path = run_dir / SUITE_FILE
    Suite(name=run_dir.name or "run", domain=tasks[0].domain, tasks=tasks).save(suite_path)
    manifest = RunManifest(
        **new_run_identity(),
        suite_path=str(suite_path.resolve()),
        suite_hash=sha256_bytes(suite_path.read_bytes()),
        domain=tasks[0].domain,
        episode=config.model_copy(update={"mode": mode, "seed": None}),
        agent=agent,
        user=user,
        trials=trials,
        seed=seed,
        versions=package_versions(),
        task_ids=list(dict.fromkeys(record.task_id for record in records)),
    )
    manifest.save(run_dir)
    stamped = (record.model_copy(update={"run_id": manifest.run_id}) for record in records)
    with (run_dir / RESULTS_FILE).open("w", encoding="utf-8", newline="\n") as handle:
        handle.writelines(json_line(record.model_dump_json()) + "\n" for record in stamped)
    return manifest
