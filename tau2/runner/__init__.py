"""The runner: a suite × actors × mode × persona × trials, simulated concurrently on one event loop (or on
worker processes, or Ray actors) into an append-only, resumable results store (`manifest.json` +
`results.jsonl`) written by the driver alone."""

from tau2.runner.convert import crash_record, episode_record
from tau2.runner.execute import episode_config, execute_run, simulate
from tau2.runner.manifest import differences, write_manifest
from tau2.runner.plan import Unit, pending_units
from tau2.runner.prepare import PreparedRun, prepare_run
from tau2.runner.progress import ProgressBar, Tally
from tau2.runner.request import RunRequest, SeatRequest, parse_assignments, parse_rate_limit, parse_task_ids
from tau2.runner.seeds import derive_seed
from tau2.runner.store import RecordWriter, repair_tail
from tau2.runner.summary import run_summary
from tau2.runner.workers import execute_on_workers, split_limits

__all__ = [
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
    "execute_on_workers",
    "execute_run",
    "parse_assignments",
    "parse_rate_limit",
    "parse_task_ids",
    "pending_units",
    "prepare_run",
    "repair_tail",
    "run_summary",
    "simulate",
    "split_limits",
    "write_manifest",
]
