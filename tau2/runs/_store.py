"""The results store's write side: set damaged lines aside, then append records through one writer.

`results.jsonl` holds one `SimulationRecord` per line and is only ever appended to. Each batch of lines is
written, flushed and `fsync`ed before the next, so a process killed at any moment loses at most the
simulations still in flight (and perhaps a torn last line, which `set_aside_damaged` moves out of the way
before a resume appends).
A resumed run re-appends units that ended on an infrastructure error: readers keep the last record of
each (task, trial) (`tau2.runs.latest_records`).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from tau2._jsonfile import json_line, open_input
from tau2.episode import TerminationReason
from tau2.errors import StorageError
from tau2.llm import safe_text
from tau2.runs._atomic import is_temporary, write_atomically
from tau2.runs._lines import bounded_lines
from tau2.runs._records import SimulationRecord
from tau2.runs._signals_held import signals_held

DAMAGED_FILE: Final = "results.damaged.jsonl"
"""Where a resume sets aside the lines of `results.jsonl` it cannot read (kept for inspection, never run)."""

WRITE_BACKLOG: Final = 64
"""Lines the writer lets wait before `RecordWriter.room` holds producers back: a few hundred kilobytes,
and enough for one write and one `fsync` to carry many records."""


def set_aside_damaged(results: Path) -> int:
    """Move every line of `results` that is not a JSON object (torn by a kill, NUL bytes or garbage left by
    a power loss) to `DAMAGED_FILE` beside it, so appending continues after readable lines only; returns
    how many lines moved. The sidecar is written first, so a kill in between duplicates, never loses; a
    rewrite a kill cut short left only a temporary, removed here. The file is read a line at a time (and
    read again only to rewrite it), so a large run costs no memory here."""
    for leftover in results.parent.glob(f".{results.name}.*"):
        if is_temporary(leftover, results.name):
            leftover.unlink()
    if not results.exists():
        return 0
    damaged = sum(1 for _ in _lines(results, keep=False))
    if not damaged:
        return 0
    with (results.parent / DAMAGED_FILE).open("ab") as sidecar:
        for line in _lines(results, keep=False):
            sidecar.write(line if line.endswith(b"\n") else line + b"\n")
        sidecar.flush()
        os.fsync(sidecar.fileno())
    write_atomically(results, _lines(results, keep=True))
    return damaged


def _lines(results: Path, *, keep: bool) -> Iterator[bytes]:
    """The lines of `results` (with their endings; a stray CR ends a line too) that are readable (`keep`:
    blank or a JSON object), or those that are damaged; read one at a time."""
    with open_input(results) as handle:
        for chunk in bounded_lines(handle, results):
            for line in chunk.splitlines(keepends=True):
                readable = not line.strip() or record_object(line) is not None
                if readable is keep:
                    yield line


def record_object(line: bytes) -> dict[str, Any] | None:
    """The JSON object `line` holds, or None for a damaged line (whether the object is a valid record is
    the reader's question)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None
    return data if isinstance(data, dict) else None


class RecordWriter:
    """The run's single writer: an async context that appends records handed to `write` in the background.

    Records waiting when a write finishes go out together in one write and one `fsync` (group commit), so
    durability costs one sync per batch rather than per record. A record is turned into its line when it
    is handed over, so the queue holds bytes, and a producer that awaits `room` never lets more than
    `backlog` lines wait: memory stays bounded however fast simulations end. Leaving the context drains
    the queue.
    """

    def __init__(self, path: Path, backlog: int = WRITE_BACKLOG) -> None:
        self._path = path
        self._backlog = backlog
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._taken = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._written = 0

    @property
    def written(self) -> int:
        """Records durably on disk so far."""
        return self._written

    async def __aenter__(self) -> RecordWriter:
        descriptor = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._task = asyncio.create_task(self._drain(descriptor), name="results-writer")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._task is not None
        self._queue.put_nowait(None)
        await asyncio.shield(self._task)

    def write(self, record: SimulationRecord) -> SimulationRecord:
        """Queue `record` for appending and return it as it will be stored (an infrastructure-error stand-in
        when it cannot be serialised); raises the writer's error if an earlier write failed. A signal that
        lands meanwhile is raised once the record is queued, so leaving the context still writes it whole."""
        self._require_running()
        with signals_held():
            line, stored = _line(record)
            self._queue.put_nowait(line)
        return stored

    async def room(self) -> None:
        """Wait until fewer than `backlog` lines wait to be written. A producer that never suspends
        otherwise (offline simulations) lets the writer run here."""
        while self._queue.qsize() >= self._backlog:
            self._require_running()
            self._taken.clear()
            await self._taken.wait()

    def _require_running(self) -> None:
        assert self._task is not None, "use RecordWriter as an async context manager"
        if self._task.done():
            self._task.result()
            raise RuntimeError("the results writer has stopped")

    async def _drain(self, descriptor: int) -> None:
        """Append what is queued, batch by batch, until the context closes. Cancelled (an interruption
        tears the event loop down), it lets the batch being appended finish, then appends every line still
        queued before closing the file: a record handed to `write` is stored whole."""
        appending: asyncio.Future[None] | None = None
        try:
            closing = False
            while not closing:
                batch = [await self._queue.get()]
                while not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                self._taken.set()
                closing = None in batch
                lines = [line for line in batch if line is not None]
                if lines:
                    appending = asyncio.ensure_future(
                        asyncio.to_thread(_append, descriptor, lines, self._path)
                    )
                    await asyncio.shield(appending)
                    appending = None
                    self._written += len(lines)
        finally:
            self._taken.set()
            try:
                if appending is not None:
                    await appending
                    self._written += len(lines)
                rest = [line for line in _emptied(self._queue) if line is not None]
                if rest:
                    _append(descriptor, rest, self._path)
                    self._written += len(rest)
            finally:
                os.close(descriptor)


def _emptied(queue: asyncio.Queue[bytes | None]) -> Iterator[bytes | None]:
    """Every item `queue` holds now, taken out."""
    while not queue.empty():
        yield queue.get_nowait()


def _append(descriptor: int, lines: list[bytes], path: Path) -> None:
    """Write JSON lines with as many `write` calls as it takes, then `fsync`; a failed write (a full disk)
    becomes one line saying the records before it are safe and how to go on."""
    data = memoryview(b"".join(lines))
    try:
        while data:
            data = data[os.write(descriptor, data) :]
        os.fsync(descriptor)
    except OSError as error:
        raise StorageError(
            f"{path}: cannot append: {error.strerror or error}; the records written before are kept: "
            f"free space and continue with `tau2 run --resume --out {path.parent}`"
        ) from None


def _line(record: SimulationRecord) -> tuple[bytes, SimulationRecord]:
    """The record as one JSON line (one line also for readers that split on U+2028 and its kin), and the
    record that line holds: a record that cannot be serialised is stored as an infrastructure error of its
    simulation instead (re-run on resume), so no single record can stop the writer. (Signals are held
    around it: one raised inside a serialiser would read as such an error.)"""
    try:
        return json_line(record.model_dump_json()).encode() + b"\n", record
    except Exception as error:  # e.g. PydanticSerializationError on text no earlier check cleaned
        stand_in = SimulationRecord(
            run_id=record.run_id,
            task_id=safe_text(record.task_id),
            trial=record.trial,
            seed=record.seed,
            mode=record.mode,
            oracle_plan=record.oracle_plan,
            reward=0.0,
            termination=TerminationReason.INFRASTRUCTURE_ERROR,
            termination_detail=f"results writer: the record could not be stored ({type(error).__name__})",
        )
        return json_line(stand_in.model_dump_json()).encode() + b"\n", stand_in
