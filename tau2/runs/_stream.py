"""Reading a results file record by record. One pass over `results.jsonl` parses each line, validates only
the fields that say which (task, trial) it is, of which run and how it ended, and keeps where the last
line of each planned (task, trial) lies; the records themselves are read and validated, one at a time,
only when iterated or indexed. Memory therefore grows with the number of (task, trial) units (a few
hundred bytes each), never with the records' size. A reader that needs no transcript (a run report) can
instead have each line's head validated and handed over in that same pass, so each line is parsed once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final, NamedTuple, TypeVar, overload

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from tau2._jsonfile import open_input, validation_error
from tau2.episode import TerminationReason
from tau2.errors import UserInputError
from tau2.runs._lines import bounded_lines
from tau2.runs._records import RecordHead, SimulationRecord
from tau2.runs._store import record_object

Read = TypeVar("Read", bound=RecordHead)
Model = TypeVar("Model", bound=BaseModel)
_READ_BUFFER: Final = 1 << 16
"""Bytes read at a time by the index's pass: records are longer than the default buffer (8 kB), which
then takes several reads and joins per line (a quarter of the pass's own time, measured)."""
_SHOWN_LINES: Final = 5
"""How many damaged line numbers a warning lists."""


class RecordKey(BaseModel):
    """The few fields of a record that say which unit it is and how it ended (read from every line)."""

    model_config = ConfigDict(frozen=True)

    run_id: str | None = None
    task_id: str
    trial: int
    reward: float
    termination: TerminationReason


class RecordLine(NamedTuple):
    """Where one effective record lies in the results file, and what selecting it needs to know."""

    offset: int
    length: int
    number: int
    """The line's number in the file (from 1), for errors."""
    task_id: str
    trial: int
    success: bool
    excluded: bool
    """Ended on an infrastructure error (left out of metrics, counted as missing)."""
    has_trajectory: bool | None
    """Whether the record holds a trajectory; None when the line was read for its head alone."""


def _read_key(line: bytes) -> tuple[RecordKey, bool] | None:
    """The key fields of a results line and whether it holds a trajectory; None for a damaged line."""
    data = parse_line(line)
    if data is None:
        return None
    return RecordKey.model_validate(data), data.get("trajectory") is not None


def _read_head(line: bytes, model: type[RecordHead]) -> tuple[RecordHead, None] | None:
    """The head of a results line (`model`: `RecordHead` or a subclass), parsed without building the rest
    (pydantic's JSON parser skips what the head ignores, so whether it holds a trajectory is not known:
    None); None for a damaged line. A line it refuses is parsed again as `parse_line` does, so errors and
    damage are told apart as for key fields."""
    try:
        return model.model_validate_json(line), None
    except ValidationError:
        data = parse_line(line)
        return None if data is None else (model.model_validate(data), None)


def parse_line(line: bytes) -> dict[str, Any] | None:
    """The JSON object a results line holds, or None for a damaged line: orjson first (fast), then the
    standard parser for what orjson refuses (e.g. `NaN`), so a line reads as `record_object` reads it."""
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return record_object(line)
    return data if isinstance(data, dict) else None


class UnitSorter:
    """Sorts a run's records into the effective ones (the last of each planned (task, trial), in order of
    first appearance) and those left out, counted by why: another run's, a task outside the manifest, a
    trial beyond the planned count, a finished unit recorded again (which only concatenated files make)."""

    def __init__(self, run_id: str, task_ids: Iterable[str], trials: int) -> None:
        self._run_id, self._planned, self._trials = run_id, set(task_ids), trials
        self.excluded: Counter[str] = Counter()
        self._finished: Counter[tuple[str, int]] = Counter()

    def keep(self, run_id: str | None, task_id: str, trial: int, excluded: bool) -> bool:
        """Whether a record of this unit belongs to the run (the caller keeps the last one per unit)."""
        if run_id is not None and run_id != self._run_id:
            self.excluded["from another run"] += 1
        elif task_id not in self._planned:
            self.excluded["of tasks outside the manifest"] += 1
        elif not 0 <= trial < self._trials:
            self.excluded[f"of trials beyond the planned {self._trials}"] += 1
        else:
            self._finished[task_id, trial] += not excluded
            return True
        return False

    def warnings(self, where: Path) -> list[str]:
        """One warning counting the records left out (none when every record belongs)."""
        repeated = sum(count - 1 for count in self._finished.values() if count > 1)
        if repeated:
            self.excluded["repeating a finished simulation (the last kept)"] += repeated
        if not self.excluded:
            return []
        parts = ", ".join(f"{count} {why}" for why, count in self.excluded.items())
        total = sum(self.excluded.values())
        return [f"{where}: left out {plural(total, 'record')} not part of run {self._run_id}: {parts}"]


def plural(number: int, noun: str) -> str:
    """`1 record`, `2 records`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def damaged_warning(path: Path, numbers: Sequence[int]) -> str:
    """The one warning about lines that are not JSON objects."""
    shown = ", ".join(map(str, numbers[:_SHOWN_LINES])) + (", …" if len(numbers) > _SHOWN_LINES else "")
    return (
        f"{path}: skipped {plural(len(numbers), 'damaged line')} (line {shown}); "
        "`tau2 run --resume` sets them aside and runs their simulations again"
    )


class ResultsIndex(NamedTuple):
    """What one pass over a results file found: where the effective records lie, the damaged lines and the
    warning counting the records left out."""

    lines: list[RecordLine]
    """The effective lines: the last of each unit the sorter keeps, in order of first appearance."""
    damaged: list[int]
    """The numbers of the lines that are not JSON objects."""
    left_out: list[str]
    """One warning counting the records that are no part of the run (none when every record belongs)."""
    replaced: bool
    """Whether a later line replaced the record of a unit kept earlier (a resumed infrastructure failure,
    concatenated files)."""

    def warnings(self, path: Path) -> list[str]:
        """The reader's warnings: the damaged lines, then the records left out."""
        return [*([damaged_warning(path, self.damaged)] if self.damaged else []), *self.left_out]


def index_results(
    path: Path,
    sorter: UnitSorter,
    fold: Callable[[RecordHead], object] | None = None,
    model: type[RecordHead] = RecordHead,
) -> ResultsIndex:
    """One streaming pass over a results file, keeping where each effective record lies (none is kept). A
    line that is JSON but not a record's key fields (with `fold`: not a record's head) is a
    `UserInputError` naming file, line and field.

    With `fold`, each kept line's head (read as `model`) is handed to it in the same pass (one parse per
    line), in file order: when a later line replaces a unit's record, both were handed over, and `replaced`
    says so."""
    latest: dict[tuple[str, int], RecordLine] = {}
    replaced = False
    task_ids: dict[str, str] = {}
    damaged: list[int] = []
    offset = 0
    try:
        with open_input(path, buffering=_READ_BUFFER) as file:
            for number, line in enumerate(bounded_lines(file, path), 1):  # on \n, as the writer ends lines
                length = len(line)
                at, offset = offset, offset + length
                if line.isspace():  # (stops at the first other byte: no copy of the line, unlike strip)
                    continue
                try:
                    read = _read_key(line) if fold is None else _read_head(line, model)
                except ValidationError as error:
                    raise validation_error(Path(f"{path}:{number}"), error) from None
                if read is None:
                    damaged.append(number)
                    continue
                key, traced = read
                excluded = key.termination.is_infrastructure
                if sorter.keep(key.run_id, key.task_id, key.trial, excluded):
                    task_id = task_ids.setdefault(key.task_id, key.task_id)  # one copy per task
                    unit = (task_id, key.trial)
                    entry = RecordLine(
                        at,
                        length,
                        number,
                        task_id,
                        key.trial,
                        key.reward >= 1.0,
                        excluded,
                        traced,
                    )
                    replaced = replaced or unit in latest
                    latest[unit] = entry  # a later line replaces the unit's record, keeping its place
                    if fold is not None and isinstance(key, RecordHead):
                        fold(key)
    except UserInputError:
        if not path.exists() and not path.is_symlink():  # no results yet: a run that recorded nothing
            return ResultsIndex([], [], [], False)
        raise
    return ResultsIndex(list(latest.values()), damaged, sorter.warnings(path), replaced)


class RecordFile(Sequence[SimulationRecord]):
    """The effective records of a run, read from its results file when iterated or indexed (each record
    validated as it is read, then let go); `lines` says where each lies, in order."""

    def __init__(self, path: Path, lines: Sequence[RecordLine]) -> None:
        self.path = path
        self.lines = list(lines)

    def __len__(self) -> int:
        return len(self.lines)

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence holding the same records (reads the file to compare)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RecordFile({str(self.path)!r}, {len(self.lines)} records)"

    @overload
    def __getitem__(self, index: int) -> SimulationRecord: ...

    @overload
    def __getitem__(self, index: slice) -> RecordFile: ...

    def __getitem__(self, index: int | slice) -> SimulationRecord | RecordFile:
        if isinstance(index, slice):
            return RecordFile(self.path, self.lines[index])
        line = self.lines[index]
        with open_input(self.path) as file:
            return self._record(file, line)

    def __iter__(self) -> Iterator[SimulationRecord]:
        """Each record, read and validated one at a time through one open file."""
        if not self.lines:
            return
        with open_input(self.path) as file:
            for line in self.lines:
                yield self._record(file, line)

    def heads(self, model: type[Read] = RecordHead) -> Iterator[Read]:  # type: ignore[assignment]
        """Each record's head (no transcript, no state changes built or validated; `model` may read a
        little more, e.g. `EffortHead`), read one at a time."""
        with open_input(self.path) as file:
            for line in self.lines:
                file.seek(line.offset)
                try:  # pydantic's JSON parser skips what the head ignores, where a parse would build it
                    yield model.model_validate_json(file.read(line.length))
                except ValidationError:  # damage and errors said as for a whole record
                    yield self._read(file, line, model)

    def where(self, keep: Callable[[RecordLine], bool]) -> RecordFile:
        """The records whose line `keep` accepts, without reading any."""
        return RecordFile(self.path, [line for line in self.lines if keep(line)])

    def objects(self) -> Iterator[tuple[RecordLine, dict[str, Any]]]:
        """Each record's line and its JSON object, parsed but not validated (`validate` makes it a model),
        read one at a time: for a reader that needs only some records' details in full."""
        with self.path.open("rb") as file:
            for line in self.lines:
                yield line, self._object(file, line)

    def validate(self, line: RecordLine, data: dict[str, Any], model: type[Model]) -> Model:
        """`data`, the JSON object of `line`, validated as `model`, errors naming the file and line."""
        try:
            return model.model_validate(data)
        except ValidationError as error:
            raise validation_error(Path(f"{self.path}:{line.number}"), error) from None

    def _record(self, file: IO[bytes], line: RecordLine) -> SimulationRecord:
        return self._read(file, line, SimulationRecord)

    def _read(self, file: IO[bytes], line: RecordLine, model: type[Read]) -> Read:
        """The line read as `model` (a record or its head), errors naming the file and line."""
        return self.validate(line, self._object(file, line), model)

    def _object(self, file: IO[bytes], line: RecordLine) -> dict[str, Any]:
        """The JSON object of `line`."""
        file.seek(line.offset)
        data = parse_line(file.read(line.length))
        if data is None:  # the file changed under us since it was indexed
            raise UserInputError(f"{self.path}:{line.number}: the line changed while the run was read")
        return data


def record_heads(records: Sequence[RecordHead]) -> Iterable[RecordHead]:
    """The records' heads: read without their transcripts from a run on disk, the records themselves
    otherwise (a record is a head)."""
    return records.heads() if isinstance(records, RecordFile) else records
