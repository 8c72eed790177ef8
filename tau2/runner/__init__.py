"""The runner: a run configuration made ready (tasks, seats, manifest, pending units) and driven on one of
three executors — one event loop in this process, worker processes, or Ray actors — into an append-only,
resumable results store (`manifest.json` + `results.jsonl`) written by the driver alone. Every executor
takes one or more prepared runs and a stream of units tagged with their run: a plain run is the only run of
its stream, an experiment's arms share one."""

from tau2.runner._convert import crash_record, episode_record, with_findings
from tau2.runner._drive import EXECUTORS, drive, drive_runs
from tau2.runner._execute import episode_config, execute_locally, simulate
from tau2.runner._lanes import Executor
from tau2.runner._manifest import (
    data_hash,
    differences,
    new_run_identity,
    package_versions,
    sha256_bytes,
    sha256_text,
    sha256_tree,
)
from tau2.runner._new_run import NewRun, check_new_run_dir, write_run
from tau2.runner._plan import ArmUnit, RunUnits, Unit, UnitQueue, UnitStream, pending_units
from tau2.runner._prepare import (
    EpisodeSetup,
    PreparedRun,
    check_credentials,
    prepare_episode,
    prepare_run,
    reward_basis_source,
    stored_manifest,
    suite_hash,
)
from tau2.runner._progress import Outcome, ProgressBar, RunProgress, Tally
from tau2.runner._ray_workers import execute_on_ray
from tau2.runner._recorder import Recorder
from tau2.runner._seeds import derive_seed
from tau2.runner._specs import resolved_model, resolved_models, resolved_seat
from tau2.runner._summary import RunTotals, latest_outcomes, nothing_judged, run_summary, stored_totals
from tau2.runner._workers import execute_on_workers, split_limits
from tau2.runs import RecordWriter, set_aside_damaged

__all__ = [
    "EXECUTORS",
    "ArmUnit",
    "EpisodeSetup",
    "Executor",
    "NewRun",
    "Outcome",
    "PreparedRun",
    "ProgressBar",
    "RecordWriter",
    "Recorder",
    "RunProgress",
    "RunTotals",
    "RunUnits",
    "Tally",
    "Unit",
    "UnitQueue",
    "UnitStream",
    "check_credentials",
    "check_new_run_dir",
    "crash_record",
    "data_hash",
    "derive_seed",
    "differences",
    "drive",
    "drive_runs",
    "episode_config",
    "episode_record",
    "execute_locally",
    "execute_on_ray",
    "execute_on_workers",
    "latest_outcomes",
    "new_run_identity",
    "nothing_judged",
    "package_versions",
    "pending_units",
    "prepare_episode",
    "prepare_run",
    "resolved_model",
    "resolved_models",
    "resolved_seat",
    "reward_basis_source",
    "run_summary",
    "set_aside_damaged",
    "sha256_bytes",
    "sha256_text",
    "sha256_tree",
    "simulate",
    "split_limits",
    "stored_manifest",
    "stored_totals",
    "suite_hash",
    "with_findings",
    "write_run",
]
