"""The runner: a suite × actors × mode × persona × trials, simulated concurrently on one event loop (or on
worker processes, or Ray actors) into an append-only, resumable results store (`manifest.json` +
`results.jsonl`) written by the driver alone."""

from tau2.runner._convert import crash_record, episode_record
from tau2.runner._execute import episode_config, execute_run, simulate
from tau2.runner._manifest import (
    differences,
    new_run_identity,
    package_versions,
    sha256_bytes,
    sha256_text,
)
from tau2.runner._plan import Unit, pending_units
from tau2.runner._prepare import EpisodeSetup, PreparedRun, prepare_episode, prepare_run
from tau2.runner._progress import ProgressBar, Tally
from tau2.runner._ray_workers import execute_on_ray
from tau2.runner._request import (
    ModelRequest,
    RunRequest,
    SeatRequest,
    parse_assignments,
    parse_rate_limit,
    parse_task_ids,
)
from tau2.runner._seeds import derive_seed
from tau2.runner._summary import nothing_judged, run_summary
from tau2.runner._workers import execute_on_workers, split_limits
from tau2.runs import RecordWriter, set_aside_damaged

__all__ = [
    "EpisodeSetup",
    "ModelRequest",
    "PreparedRun",
    "ProgressBar",
    "RecordWriter",
    "RunRequest",
    "SeatRequest",
    "Tally",
    "Unit",
    "crash_record",
    "derive_seed",
    "differences",
    "episode_config",
    "episode_record",
    "execute_on_ray",
    "execute_on_workers",
    "execute_run",
    "new_run_identity",
    "nothing_judged",
    "package_versions",
    "parse_assignments",
    "parse_rate_limit",
    "parse_task_ids",
    "pending_units",
    "prepare_episode",
    "prepare_run",
    "run_summary",
    "set_aside_damaged",
    "sha256_bytes",
    "sha256_text",
    "simulate",
    "split_limits",
]
