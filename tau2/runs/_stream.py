"""Reading a results file one record at a time, so a reader's memory does not grow with the run: the
records in file order, and the sorting of a run's own records from those that are no part of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from tau2._jsonfile import validation_error
from tau2.errors import UserInputError
from tau2.runs._records import SimulationRecord
from tau2.runs._rundir import RunManifest, damaged_warning
from tau2.runs._store import record_object


def iter_records(path: Path, damaged: list[int] | None = None) -> Iterator[SimulationRecord]:
    """The records of a results file in file order, read and validated one line at a time (nothing yielded
    is kept). Lines are numbered as `read_records` numbers them; the numbers of lines that are not JSON
    objects (torn by a kill, garbage) are appended to `damaged` and skipped; a JSON line that is not a
    valid record is a `UserInputError` naming file, line and field. A missing file holds no records."""
    return (record for _, record in _placed_records(path, damaged))


def _placed_records(path: Path, damaged: list[int] | None) -> Iterator[tuple[int, SimulationRecord]]:
    """`iter_records`, each record with the byte offset its line starts at."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    except OSError as error:
        raise UserInputError(f"{path}: cannot read: {error.strerror or error}") from None
    number = 0
    offset = 0
    with handle:
        for chunk in _newline_terminated(handle, path):
            cursor = 0
            for line in chunk.splitlines():  # a stray CR inside a line ends a line too, as for read_records
                number += 1
                cursor = chunk.index(line, cursor)
                record = _record(line, number, path, damaged)
                if record is not None:
                    yield offset + cursor, record
                cursor += len(line)
            offset += len(chunk)


def _record(line: bytes, number: int, path: Path, damaged: list[int] | None) -> SimulationRecord | None:
    """The record on line `number`; None for a blank or damaged line (whose number goes to `damaged`)."""
    if not line.strip():
        return None
    data = record_object(line)
    if data is None:
        if damaged is not None:
            damaged.append(number)
        return None
    try:
        return SimulationRecord.model_validate(data)
    except ValidationError as error:
        raise validation_error(Path(f"{path}:{number}"), error) from None


def iter_effective_records(manifest: RunManifest, path: Path) -> Iterator[SimulationRecord]:
    """A run's effective records as `run_records` gives them (its own, the last of each task and trial,
    in order of the unit's first record), read in two passes: one notes where each unit's last record
    starts, the other reads just those lines. Memory: one offset per unit and the record in hand."""
    stream = RunRecordStream(manifest, path)
    last: dict[tuple[str, int], int] = {}
    for place, record in stream.placed():
        last[record.task_id, record.trial] = place
    if not last:
        return
    with path.open("rb") as handle:
        for place in last.values():
            handle.seek(place)
            line = handle.readline().splitlines()[0]
            effective = _record(line, 0, path, None)
            assert effective is not None, "the line was read as a record a moment ago"
            yield effective


def _newline_terminated(handle: Iterator[bytes], path: Path) -> Iterator[bytes]:
    """The file's lines split at LF only; a read error is one line naming the file."""
    try:
        yield from handle
    except OSError as error:
        raise UserInputError(f"{path}: cannot read: {error.strerror or error}") from None


class RunRecordStream:
    """A run's own records, read one at a time from its results file in file order: the records `run_records`
    would leave out (of another run, a task outside the manifest, a trial beyond the plan) are skipped, and
    counted. Finished units recorded more than once are all yielded (the reader keeps the last). After
    iterating, `read_warnings` and `left_out_warnings` say what `read_records` and `run_records` would."""

    def __init__(self, manifest: RunManifest, path: Path) -> None:
        self._path = path
        self._membership = RunMembership(manifest.run_id, manifest.task_ids, manifest.trials)
        self._damaged: list[int] = []

    def __iter__(self) -> Iterator[SimulationRecord]:
        return (record for _, record in self.placed())

    def placed(self) -> Iterator[tuple[int, SimulationRecord]]:
        """The run's records, each with the byte offset its line starts at."""
        keep = self._membership.keep
        placed = _placed_records(self._path, self._damaged)
        return ((place, record) for place, record in placed if keep(record))

    @property
    def read_warnings(self) -> list[str]:
        """A warning naming the damaged lines skipped so far, if any."""
        return [damaged_warning(self._path, self._damaged)] if self._damaged else []

    @property
    def left_out_warnings(self) -> list[str]:
        """A warning counting the records left out so far, if any."""
        warning = self._membership.warning(self._path)
        return [] if warning is None else [warning]


class RunMembership:
    """Sorts records, one at a time, into the run's own (`keep`) and those left out: records of another
    run, of a task outside the manifest, of a trial beyond the planned count, and finished units recorded
    more than once (which only concatenated files produce; the last is kept). Its `warning` counts the
    left-out ones as `run_records` does. Memory: one entry per finished unit."""

    def __init__(self, run_id: str, task_ids: list[str], trials: int) -> None:
        self._run_id = run_id
        self._planned = set(task_ids)
        self._trials = trials
        self._finished: set[tuple[str, int]] = set()
        self._excluded: Counter[str] = Counter()

    def keep(self, record: SimulationRecord) -> bool:
        """Whether `record` is one of the run's (counting it among the left-out ones if not)."""
        if record.run_id is not None and record.run_id != self._run_id:
            self._excluded["from another run"] += 1
            return False
        if record.task_id not in self._planned:
            self._excluded["of tasks outside the manifest"] += 1
            return False
        if not 0 <= record.trial < self._trials:
            self._excluded[f"of trials beyond the planned {self._trials}"] += 1
            return False
        if not record.excluded:
            unit = (record.task_id, record.trial)
            if unit in self._finished:
                self._excluded["repeating a finished simulation (the last kept)"] += 1
            self._finished.add(unit)
        return True

    def warning(self, where: Path) -> str | None:
        """One line counting the records left out so far, or None when there were none."""
        if not self._excluded:
            return None
        parts = ", ".join(f"{count} {why}" for why, count in _in_reading_order(self._excluded))
        total = sum(self._excluded.values())
        plural = "" if total == 1 else "s"
        return f"{where}: left out {total} record{plural} not part of run {self._run_id}: {parts}"


def _in_reading_order(excluded: Counter[str]) -> list[tuple[str, int]]:
    """The reasons in the order `run_records` lists them: as first met, repeats last."""
    repeats = "repeating a finished simulation (the last kept)"
    return [item for item in excluded.items() if item[0] != repeats] + (
        [(repeats, excluded[repeats])] if repeats in excluded else []
    )
