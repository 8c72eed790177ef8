"""Run records on disk: one JSONL record per simulation, the manifest, reading a run directory, the
append-only writer and the lock that gives a run sole use of its directory; experiment directories (an
experiment file beside one run directory per arm). `load_run` streams: its `Run.records` is a `RecordFile`
that reads the effective records from disk one at a time."""

from tau2.runs._atomic import is_temporary
from tau2.runs._experiment import EXPERIMENT_FILE, ExperimentManifest, arm_run_dir, load_experiment
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
    run_records,
)
from tau2.runs._store import DAMAGED_FILE, RecordWriter, set_aside_damaged
from tau2.runs._stream import RecordFile, RecordLine

__all__ = [
    "DAMAGED_FILE",
    "EXPERIMENT_FILE",
    "MANIFEST_FILE",
    "RESULTS_FILE",
    "ExperimentManifest",
    "RecordFile",
    "RecordLine",
    "RecordWriter",
    "Run",
    "RunDirectoryLock",
    "RunManifest",
    "SimulationRecord",
    "arm_run_dir",
    "is_temporary",
    "latest_records",
    "load_experiment",
    "load_manifest",
    "load_run",
    "read_records",
    "run_records",
    "set_aside_damaged",
]
