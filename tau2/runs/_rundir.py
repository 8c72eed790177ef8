"""Run directories: `manifest.json` (the run's configuration and provenance) and `results.jsonl` (one
`SimulationRecord` per line, append-only), shared by the runner that writes them and the reports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    SkipValidation,
    ValidationError,
    model_serializer,
    model_validator,
)

from tau2._jsonfile import canonical_json, open_input, read_json, validation_error
from tau2._registry import refuse_data_reference
from tau2.config import RECORDED, ActorSpec, EpisodeConfig, Mode, RunConfig
from tau2.errors import UserInputError
from tau2.runs._atomic import write_atomically
from tau2.runs._legacy import flat_location, is_flat, nested
from tau2.runs._lines import bounded_lines
from tau2.runs._records import RecordHead, SimulationRecord
from tau2.runs._store import record_object
from tau2.runs._stream import RecordFile, ResultsIndex, UnitSorter, damaged_warning, index_results

MANIFEST_FILE: Final = "manifest.json"
RESULTS_FILE: Final = "results.jsonl"


class RegradedFrom(BaseModel):
    """Where a regraded run's conversations come from: the run whose stored transcripts were scored again,
    and what scored them: other judges (`tau2 regrade --judge-model`) or other task definitions
    (`tau2 regrade --suite`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    path: str
    """The original run's directory (absolute), which the regrade left untouched."""
    judges: list[str] = Field(default_factory=list)
    """A regrade by judges: the new judges' models, the first (whose verdicts decide the reward) first."""
    suite: str | None = None
    """A regrade against other task definitions: the task file (absolute) it scored against."""

    @model_serializer(mode="wrap")
    def _only_what_was_used(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Name the judges or the suite, whichever the regrade used."""
        data: dict[str, Any] = handler(self)
        if not data.get("judges"):
            data.pop("judges", None)
        if data.get("suite") is None:
            data.pop("suite", None)
        return data


class RunManifest(BaseModel):
    """A run's saved configuration and its provenance, written when the run starts (and again when a resume
    adds trials); a resume reads the configuration back. Manifests of the older flat shape read the same."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    created_at: datetime
    config: RunConfig
    """The run's configuration as it ran: paths absolute, each seat's model transport resolved."""
    suite_path: str
    """The suite file the tasks were read from (absolute)."""
    suite_hash: str
    domain: str
    """The tasks' domain."""
    task_ids: list[str] = Field(min_length=1)
    """The tasks of the run, in order (a run covers at least one)."""
    versions: dict[str, str] = Field(default_factory=dict)
    hashes: dict[str, str] = Field(default_factory=dict)
    """Run-wide content hashes, by name: `agent_prompt`/`user_prompt` (the seats' prompt templates),
    `policy`, `data` (the starting database as loaded), `data_dir` (every file of a given data directory),
    `judge` (the judge models' settings), `persona` (an override's text)."""
    task_hashes: dict[str, str] = Field(default_factory=dict)
    """Each task's content hash, by task id (empty in manifests made before runs recorded them: their
    provenance is unknown)."""
    reward_basis_source: Literal["implied", "explicit"] | None = None
    """For τ²-bench task files: whether the reward basis was implied (the older `tasks.json`, judged on
    database × communicated information) or written in the file (`tasks_v1.json`); None = our suites'
    assertion-judged tasks."""
    regraded_from: RegradedFrom | None = None
    """For a run made by `tau2 regrade`: the run it was regraded from, and with what; None for runs that
    simulated their own conversations."""

    @model_serializer(mode="wrap")
    def _omit_unregraded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `regraded_from` out of runs that were not regraded, so their manifests stay as they were."""
        data: dict[str, Any] = handler(self)
        if data.get("regraded_from") is None:
            data.pop("regraded_from", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _nest_flat(cls, data: Any) -> Any:
        """Read a manifest of the flat shape into this one."""
        return nested(data) if is_flat(data) else data

    @property
    def episode(self) -> EpisodeConfig:
        """Every episode's configuration; its seed is unset here (each unit's seed derives from `seed`)."""
        return self.config.episode

    @property
    def mode(self) -> Mode:
        """The episodes' mode."""
        return self.config.mode

    @property
    def agent(self) -> ActorSpec:
        """The agent seat."""
        return self.config.agent

    @property
    def user(self) -> ActorSpec | None:
        """The user seat; None in solo mode."""
        return None if self.config.mode is Mode.SOLO else self.config.user

    @property
    def trials(self) -> int:
        """Trials per task planned so far: a resume may raise it (never lower it) to add trials."""
        return self.config.trials

    @property
    def seed(self) -> int:
        """The run seed."""
        return self.config.seed

    def mode_label(self) -> str:
        """Short printable mode, e.g. `solo+oracle_plan`."""
        return self.config.label()

    def save(self, run_dir: Path) -> None:
        """Write `manifest.json` into `run_dir` atomically: the one writer of manifests."""
        write_atomically(run_dir / MANIFEST_FILE, canonical_json(self.model_dump(mode="json")).encode())


class Run(BaseModel):
    """A run as reports see it: its manifest and its effective records."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: Path
    manifest: RunManifest
    records: SkipValidation[Sequence[SimulationRecord]]
    """The last record of each (task, trial), in order of first appearance: for a run read by `load_run`, a
    `RecordFile` that reads each record from disk when iterated, so a run is never held in memory whole."""
    warnings: list[str] = Field(default_factory=list)


def load_manifest(run_dir: Path) -> RunManifest:
    """Read and validate `run_dir/manifest.json`."""
    path = run_dir / MANIFEST_FILE
    data = read_json(path)
    try:
        return RunManifest.model_validate(data, context=RECORDED)
    except ValidationError as error:
        raise validation_error(path, error, locate=flat_location if is_flat(data) else None) from None


def require_named_domain(manifest: RunManifest, where: str) -> None:
    """Refuse (one `UserInputError` line) a run whose manifest names its domain by a `module:attribute`
    reference the user has not named: reading a run never imports the code it names. Called before the
    run's domain is looked up (a regrade, an export, the audit of a report)."""
    for field, named in (("domain", manifest.domain), ("config.domain", manifest.config.domain)):
        if named is not None:
            refuse_data_reference(named, "domain", f"{where}: {field}")


def read_records(path: Path) -> tuple[list[SimulationRecord], list[str]]:
    """Every record of a results file, in file order, and warnings. Lines that are not JSON (torn by a
    kill, garbage left by a power loss) are skipped with one warning; a JSON line that is not a valid
    record is a `UserInputError` naming file, line and field."""
    if not path.exists() and not path.is_symlink():
        return [], []
    with open_input(path) as handle:
        lines = [part for line in bounded_lines(handle, path) for part in line.splitlines()]
    records: list[SimulationRecord] = []
    damaged: list[int] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        data = record_object(line)
        if data is None:
            damaged.append(number)
            continue
        try:
            records.append(SimulationRecord.model_validate(data))
        except ValidationError as error:
            raise validation_error(Path(f"{path}:{number}"), error) from None
    warnings = [] if not damaged else [damaged_warning(path, damaged)]
    return records, warnings


def latest_records(records: list[SimulationRecord]) -> list[SimulationRecord]:
    """The last record of each (task, trial): a resumed run re-appends those lost to infrastructure."""
    latest: dict[tuple[str, int], SimulationRecord] = {}
    for record in records:
        latest[record.task_id, record.trial] = record
    return list(latest.values())


def run_records(
    manifest: RunManifest, records: list[SimulationRecord], where: Path
) -> tuple[list[SimulationRecord], list[str]]:
    """The run's effective records (last per planned unit) and a warning counting the records left out:
    those of another run, of a task outside the manifest, of a trial beyond the planned count, and
    finished units recorded more than once (which only concatenated files produce)."""
    sorter = UnitSorter(manifest.run_id, manifest.task_ids, manifest.trials)
    ours = [r for r in records if sorter.keep(r.run_id, r.task_id, r.trial, r.excluded)]
    return latest_records(ours), sorter.warnings(where)


def load_run(path: Path) -> Run:
    """Open a run directory (manifest plus tolerant results): one streaming pass finds the effective
    records, which are read from disk one at a time whenever `Run.records` is iterated."""
    manifest = _run_manifest(path)
    results = path / RESULTS_FILE
    index = index_run(manifest, results)
    records = RecordFile(results, index.lines)
    return Run(path=path, manifest=manifest, records=records, warnings=index.warnings(results))


Head = TypeVar("Head", bound=RecordHead, contravariant=True)
Fold = TypeVar("Fold", bound="HeadFold[Any]")


class HeadFold(Protocol[Head]):
    """Aggregates fed one record head (`RecordHead`, or the subclass they are read as) at a time."""

    def add(self, head: Head, /) -> object: ...


def fold_run(
    path: Path, start: Callable[[RunManifest], Fold], model: type[RecordHead] = RecordHead
) -> tuple[Run, Fold]:
    """Open a run directory like `load_run` and fold the heads of its effective records (read as `model`,
    `RecordHead` or a subclass the fold takes, such as `EffortHead`) into `start`'s aggregates in the same
    pass, so each line is parsed once. When a later line replaced a unit's record (a resumed
    infrastructure failure, concatenated files), both went into the fold: it is started again and fed the
    effective records' heads alone."""
    manifest = _run_manifest(path)
    results = path / RESULTS_FILE
    fold = start(manifest)
    index = index_results(
        results, UnitSorter(manifest.run_id, manifest.task_ids, manifest.trials), fold.add, model
    )
    records = RecordFile(results, index.lines)
    if index.replaced:
        fold = start(manifest)
        for head in records.heads(model):
            fold.add(head)
    return Run(path=path, manifest=manifest, records=records, warnings=index.warnings(results)), fold


def _run_manifest(path: Path) -> RunManifest:
    """The manifest of the run directory at `path`."""
    if not path.is_dir():
        raise UserInputError(f"{path}: not a run directory")
    return load_manifest(path)


def index_run(
    manifest: RunManifest, results: Path, fold: Callable[[RecordHead], object] | None = None
) -> ResultsIndex:
    """One streaming pass over the run's results file: where its effective records lie (`RecordFile` reads
    them), its damaged lines and the records left out; with `fold`, each kept record's head is handed to it
    in the same pass."""
    return index_results(results, UnitSorter(manifest.run_id, manifest.task_ids, manifest.trials), fold)
