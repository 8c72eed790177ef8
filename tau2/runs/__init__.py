"""Run records on disk: one JSONL record per simulation, the manifest, reading a run directory, the
append-only writer and the lock that gives a run sole use of its directory."""

from tau2.runs._lock import RunDirectoryLock
from tau2.runs._records import SimulationRecord
from tau2.runs._rundir import (
    MANIFEST_FILE,
    RESULTS_FILE,
    Run,
    RunManifest,
    latest_records,
    load_manifest,
    load_run,
    read_records,
)
from tau2.runs._store import RecordWriter, repair_tail

__all__ = [
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "RecordWriter",
    "Run",
    "RunDirectoryLock",
    "RunManifest",
    "SimulationRecord",
    "latest_records",
    "load_manifest",
    "load_run",
    "read_records",
    "repair_tail",
]
