"""The data behind the HTML transcript viewer: one small row per simulation for the table, and each
simulation's transcript, compacted and gzip-compressed in chunks the page decodes only when opened."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Final, TypeVar

from tau2.episode import Entry, EntryKind, mode_label
from tau2.report.schema import SimulationRow
from tau2.runs import SimulationRecord

T = TypeVar("T")

CHUNK: Final = 50
"""Simulations per compressed block: large enough to compress well, small enough to open at once."""

ROW_FIELDS: Final = (
    "task",
    "intent",
    "subtasks",
    "persona",
    "trial",
    "reward",
    "termination",
    "excluded",
    "steps",
    "tool_errors",
    "tokens",
    "cost",
    "run",
)
"""The order of the values of each table row (the page reads them by position); `run` names the run a
simulation belongs to on a page showing two (A or B), and is null otherwise."""


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last one shorter)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


_KIND: Final = {
    EntryKind.MESSAGE: "message",
    EntryKind.TOOL_CALL: "call",
    EntryKind.TOOL_RESULT: "result",
    EntryKind.REJECTED_REPLY: "rejected",
    EntryKind.ACTOR_ERROR: "error",
}


def table_rows(records: Iterable[SimulationRecord], runs: Sequence[str] = ()) -> list[list[Any]]:
    """One positional row per simulation, in `ROW_FIELDS` order; `runs` names each record's run."""
    rows = []
    for index, record in enumerate(records):
        usage = list(record.usage.values())
        cost = None if any(u.cost is None for u in usage) else sum(u.cost or 0.0 for u in usage)
        rows.append(
            [
                record.task_id,
                record.intent,
                record.subtasks,
                record.persona,
                record.trial,
                record.reward,
                record.termination.value,
                record.excluded,
                record.steps,
                record.tool_errors,
                sum(u.prompt_tokens + u.completion_tokens for u in usage),
                cost,
                runs[index] if runs else None,
            ]
        )
    return rows


def report_rows(rows: Iterable[SimulationRow]) -> list[list[Any]]:
    """`table_rows` from a report's rows, which already hold every value the table shows."""
    return [
        [
            row.task_id,
            row.intent,
            row.subtasks,
            row.persona,
            row.trial,
            row.reward,
            row.termination.value,
            row.excluded,
            row.steps,
            row.tool_errors,
            row.tokens,
            row.cost,
            None,
        ]
        for row in rows
    ]


def transcript(record: SimulationRecord) -> dict[str, Any]:
    """Everything the viewer shows about one simulation, with short keys (`perturbation` only for a
    simulation a perturbation touched)."""
    entries = record.trajectory.entries if record.trajectory is not None else []
    shown = {
        "mode": mode_label(record.mode, record.oracle_plan),
        "seed": record.seed,
        "detail": record.termination_detail,
        "transfer": record.expects_transfer,
        "duration": round(record.duration_s, 3),
        "usage": {
            seat.value: [u.calls, u.prompt_tokens, u.completion_tokens, u.cost, u.truncated]
            for seat, u in record.usage.items()
        },
        "format": {seat.value: count for seat, count in record.format_failures.items()},
        "entries": [_entry(entry) for entry in entries],
        "assertions": [
            [a.side.value, a.name, a.arguments, a.expected, a.passed, a.error, a.observed]
            for a in record.assertions
        ],
        "actions": [[a.name, a.side.value, a.performed, a.by_right_seat] for a in record.actions],
        "changes": [[c.path, c.kind.value, c.before, c.after] for c in record.state_changes],
    }
    perturbation = record.perturbation
    if perturbation is not None:
        shown["perturbation"] = {
            "events": [
                [
                    e.kind,
                    e.effect,
                    None if e.seat is None else e.seat.value,
                    e.entry,
                    e.tool,
                    e.detail,
                    e.repeat,
                ]
                for e in perturbation.events
            ],
            "noticed": perturbation.noticed,
        }
    return shown


def _entry(entry: Entry) -> list[Any]:
    """[seat, kind, text or tool name, call arguments or result text (a rejected reply: raw calls), ok],
    then 1 when the turn's model reply was cut off at the token cap."""
    fields = _fields(entry)
    return [*fields, 1] if entry.usage is not None and entry.usage.truncated else fields


def _fields(entry: Entry) -> list[Any]:
    seat, kind = entry.seat.value, _KIND[entry.kind]
    rejected = entry.rejected
    if entry.kind is EntryKind.REJECTED_REPLY and rejected is not None:
        calls = [[raw.name, raw.arguments] for raw in rejected.tool_calls]
        text = "\n".join(part for part in (rejected.format_note, rejected.text) if part)
        return [seat, kind, text, calls, False]
    call = entry.tool_call
    if entry.kind is EntryKind.TOOL_CALL and call is not None:
        return [seat, kind, call.name, call.arguments, True]
    if entry.kind is EntryKind.TOOL_RESULT and entry.result is not None:
        return [seat, kind, call.name if call else "", entry.result.render(), entry.result.ok]
    return [seat, kind, entry.text or "", None, entry.kind is not EntryKind.ACTOR_ERROR]


def chunks(records: Iterable[SimulationRecord]) -> Iterator[str]:
    """The transcripts in blocks of `CHUNK`, each gzip-compressed JSON in base64, made as the records are
    read (one block's records held at a time)."""
    for batch in batched(records, CHUNK):
        data = json.dumps([transcript(r) for r in batch], separators=(",", ":"))
        yield base64.b64encode(gzip.compress(data.encode(), mtime=0)).decode("ascii")


def script_json(value: Any) -> str:
    """JSON safe inside a `<script>` element (no `</script>` or comment openers can appear)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
