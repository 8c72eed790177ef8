"""Run records on disk: one JSONL record per simulation, the manifest, reading a run directory, the
append-only writer (a signal that lands while a record is written stops the run once it is stored whole)
and the lock that gives a run sole use of its directory; the provenance of scores
(task content hashes, the hashes a record carries, which differ between runs). `load_run` streams: its
`Run.records` is a `RecordFile` that reads the effective records from disk one at a time. (An experiment's
directory, an experiment file beside one run directory per arm, is `tau2.experiments`'.)"""

from tau2.runs._atomic import clear_unfinished_writes, is_temporary, write_atomically
from tau2.runs._lines import MAX_RECORD_BYTES
from tau2.runs._lock import RunDirectoryLock
from tau2.runs._manifest import MANIFEST_FILE, RegradedFrom, RunManifest, load_manifest, require_named_domain
from tau2.runs._provenance import (
    Provenance,
    ProvenanceCheck,
    check_provenance,
    record_provenance,
    task_hash,
    task_hashes,
)
from tau2.runs._records import (
    SUMMARY_FIELDS,
    EffortHead,
    EntryShape,
    RecordHead,
    SimulationRecord,
    TrajectoryRecord,
    TrajectoryShape,
)
from tau2.runs._rundir import (
    RESULTS_FILE,
    HeadFold,
    Run,
    fold_run,
    index_run,
    latest_records,
    load_run,
    read_records,
    run_records,
)
from tau2.runs._signals_held import signals_held
from tau2.runs._store import DAMAGED_FILE, RecordWriter, set_aside_damaged
from tau2.runs._stream import RecordFile, RecordLine, ResultsIndex, record_heads
from tau2.runs._words import COMMAND_LINE, PYTHON, DirectoryWords

__all__ = [
    "COMMAND_LINE",
    "DAMAGED_FILE",
    "MANIFEST_FILE",
    "MAX_RECORD_BYTES",
    "PYTHON",
    "RESULTS_FILE",
    "SUMMARY_FIELDS",
    "DirectoryWords",
    "EffortHead",
    "EntryShape",
    "HeadFold",
    "Provenance",
    "ProvenanceCheck",
    "RecordFile",
    "RecordHead",
    "RecordLine",
    "RecordWriter",
    "RegradedFrom",
    "ResultsIndex",
    "Run",
    "RunDirectoryLock",
    "RunManifest",
    "SimulationRecord",
    "TrajectoryRecord",
    "TrajectoryShape",
    "check_provenance",
    "clear_unfinished_writes",
    "fold_run",
    "index_run",
    "is_temporary",
    "latest_records",
    "load_manifest",
    "load_run",
    "read_records",
    "record_heads",
    "record_provenance",
    "require_named_domain",
    "run_records",
    "set_aside_damaged",
    "signals_held",
    "task_hash",
    "task_hashes",
    "write_atomically",
]
