"""The results store's write side: repair a torn tail, then append records through one writer.

`results.jsonl` holds one `SimulationRecord` per line and is only ever appended to. Each batch of lines is
written, flushed and `fsync`ed before the next, so a process killed at any moment loses at most the
simulations still in flight (and perhaps a torn last line, which `repair_tail` drops before appending).
A resumed run re-appends units that ended on an infrastructure error: readers keep the last record of
each (task, trial) (`tau2.runs._rundir.latest_records`).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from types import TracebackType

from tau2.episode import TerminationReason
from tau2.llm import safe_text
from tau2.runs._records import SimulationRecord

_CHUNK = 1 << 16


def repair_tail(path: Path) -> int:
    """Truncate `path` after its last newline, dropping a line torn by a kill; returns the bytes dropped."""
    try:
        handle = path.open("rb+")
    except FileNotFoundError:
        return 0
    with handle:
        size = handle.seek(0, os.SEEK_END)
        end = size
        while end > 0:
            start = max(0, end - _CHUNK)
            handle.seek(start)
            newline = handle.read(end - start).rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
                break
            end = start
        if end == size:
            return 0
        handle.truncate(end)
        handle.flush()
        os.fsync(handle.fileno())
        return size - end


class RecordWriter:
    """The run's single writer: an async context that appends records handed to `write` in the background.

    Records waiting when a write finishes go out together in one write and one `fsync` (group commit), so
    durability costs one sync per batch rather than per record. Leaving the context drains the queue.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._queue: asyncio.Queue[SimulationRecord | None] = asyncio.Queue()
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

    def write(self, record: SimulationRecord) -> None:
        """Queue `record` for appending; raises the writer's error if an earlier write failed."""
        assert self._task is not None, "use RecordWriter as an async context manager"
        if self._task.done():
            self._task.result()
            raise RuntimeError("the results writer has stopped")
        self._queue.put_nowait(record)

    async def _drain(self, descriptor: int) -> None:
        try:
            closing = False
            while not closing:
                batch = [await self._queue.get()]
                while not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                closing = None in batch
                records = [record for record in batch if record is not None]
                if records:
                    await asyncio.to_thread(_append, descriptor, records)
                    self._written += len(records)
        finally:
            os.close(descriptor)


def _append(descriptor: int, records: list[SimulationRecord]) -> None:
    """Write records as JSON lines with as many `write` calls as it takes, then `fsync`."""
    data = memoryview(b"".join(_line(record) for record in records))
    while data:
        data = data[os.write(descriptor, data) :]
    os.fsync(descriptor)


def _line(record: SimulationRecord) -> bytes:
    """The record as one JSON line; a record that cannot be serialised is stored as an infrastructure error
    of its simulation instead (re-run on resume), so no single record can stop the writer."""
    try:
        return record.model_dump_json().encode() + b"\n"
    except Exception as error:  # e.g. PydanticSerializationError on text no earlier check cleaned
        stand_in = SimulationRecord(
            task_id=safe_text(record.task_id),
            trial=record.trial,
            seed=record.seed,
            mode=record.mode,
            oracle_plan=record.oracle_plan,
            reward=0.0,
            termination=TerminationReason.INFRASTRUCTURE_ERROR,
            termination_detail=f"results writer: the record could not be stored ({type(error).__name__})",
        )
        return stand_in.model_dump_json().encode() + b"\n"
