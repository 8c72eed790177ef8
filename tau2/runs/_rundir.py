"""Run directories: `manifest.json` (the run's configuration and provenance, `RunManifest`) and
`results.jsonl` (one `SimulationRecord` per line, append-only), shared by the runner that writes them and
the reports."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SkipValidation,
    ValidationError,
)

from tau2._jsonfile import open_input, validation_error
from tau2.errors import UserInputError
from tau2.runs._lines import bounded_lines
from tau2.runs._manifest import RunManifest, load_manifest
from tau2.runs._records import RecordHead, SimulationRecord
from tau2.runs._store import record_object
from tau2.runs._stream import RecordFile, ResultsIndex, UnitSorter, damaged_warning, index_results

RESULTS_FILE: Final = "results.jsonl"


class Run(BaseModel):
    """A run as reports see it: its manifest and its effective records."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: Path
    manifest: RunManifest
    records: SkipValidation[Sequence[SimulationRecord]]
    """The last record of each (task, trial), in order of first appearance: for a run read by `load_run`, a
    `RecordFile` that reads each record from disk when iterated, so a run is never held in memory whole."""
    warnings: list[str] = Field(default_factory=list)


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
