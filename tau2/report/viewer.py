"""The trajectory viewer: one simulation in the terminal, each seat's turns in its own column, with a
header that never wraps, the failed assertions, what changed in the world and the reference actions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tau2._display import data_text
from tau2.episode import AssertionRecord, Entry, EntryKind, Mode, mode_label
from tau2.errors import UserInputError
from tau2.perturbations import PerturbationRecord
from tau2.report import fmt
from tau2.report.terminal import line
from tau2.runs import RecordFile, Run, SimulationRecord
from tau2.world import ChangeKind, Side, StateChange

CUT_MARK = "[reply cut at the token cap]"
"""Shown after the first entry of a turn whose model reply hit the token cap."""

UNREACHED_MARK = "[never reached the world: {}]"
"""Shown after a call a perturbation kept from the world and after its result, with what kept it."""


def select_simulations(
    run: Run, task: str | None, trial: int | None, failed: bool
) -> Sequence[SimulationRecord]:
    """The run's records matching every given filter; a `UserInputError` when none does. For a run read
    from disk the filters are applied to its index: nothing is read until a chosen record is shown."""
    records = run.records
    if isinstance(records, RecordFile):
        chosen: Sequence[SimulationRecord] = records.where(
            lambda line: (
                (task is None or line.task_id == task)
                and (trial is None or line.trial == trial)
                and not (failed and line.success)
            )
        )
    else:
        chosen = [
            record
            for record in records
            if (task is None or record.task_id == task)
            and (trial is None or record.trial == trial)
            and not (failed and record.success)
        ]
    if not chosen:
        filters = [
            f"task {task!r}" if task is not None else "",
            f"trial {trial}" if trial is not None else "",
            "failed" if failed else "",
        ]
        described = ", ".join(part for part in filters if part) or "any"
        raise UserInputError(f"{run.path}: no simulation matches ({described})")
    return chosen


def simulation_view(record: SimulationRecord) -> list[RenderableType]:
    """Header, the trajectory by seat, what perturbations did (when any did), the failed assertions, the
    world's changes and the reference actions of one record."""
    parts: list[RenderableType] = [_header(record)]
    if record.trajectory is None:
        parts.append(data_text("no trajectory recorded", style="italic"))
    else:
        parts.append(_trajectory(record.trajectory.entries, record.mode, _unreached(record)))
    if record.perturbation is not None:
        parts.append(_perturbations(record.perturbation))
    parts.append(_checks(record) if record.checks else _failed_assertions(record.assertions))
    if record.state_changes:
        parts.append(_changes(record.state_changes))
    if record.actions:
        parts.append(_actions(record))
    return parts


def _checks(record: SimulationRecord) -> Table:
    """Reward-basis checks: gating ones first, each with its outcome and what it checked."""
    table = Table(title=data_text("Evaluation checks", style="bold"), title_justify="left")
    for column in ("kind", "role", "outcome", "item", "detail"):
        table.add_column(column, overflow="fold")
    unjudged = "not needed" if record.judge_skipped else "not judged"
    for check in sorted(record.checks, key=lambda check: not check.gating):
        outcome = {True: "pass", False: "FAIL", None: unjudged}[check.passed]
        cells = (check.kind.value, "gating" if check.gating else "diagnostic", outcome)
        table.add_row(*(data_text(cell) for cell in (*cells, check.item or "", check.detail or "")))
    return table


def _header(record: SimulationRecord) -> Group:
    """Title and facts, each a line broken between its parts when the console is narrower (`line`)."""
    outcome = "success" if record.success else "failure"
    termination = record.termination.value + (" (excluded: infrastructure)" if record.excluded else "")
    if record.termination_detail:
        termination += f": {record.termination_detail}"
    usage = " · ".join(
        f"{seat.value} {u.calls:,} calls, {u.prompt_tokens + u.completion_tokens:,} tokens, "
        + fmt.cost(u.cost)
        + (f", {u.truncated:,} cut at the token cap" if u.truncated else "")
        for seat, u in record.usage.items()
    )
    rows = [
        f"{record.task_id} · trial {record.trial}",
        f"reward {record.reward:g} ({outcome}) · termination {termination}",
        f"{mode_label(record.mode, record.oracle_plan)} · persona {record.persona or 'none'} · seed "
        f"{record.seed} · expects transfer {'yes' if record.expects_transfer else 'no'}",
        f"{record.steps:,} turns · {record.tool_errors:,} tool errors · {record.duration_s:.1f} s · "
        + (usage or "no model calls"),
    ]
    if record.format_failures:
        failures = ", ".join(f"{seat.value} {count:,}" for seat, count in record.format_failures.items())
        rows.append(f"format failures (tool calls written as text, not run): {failures}")
    return Group(*(line(row, "bold" if number == 0 else "") for number, row in enumerate(rows)))


def _changes(changes: Sequence[StateChange]) -> Table:
    table = Table(title=data_text("World state changes (start → end)", style="bold"), title_justify="left")
    for column in ("place", "change", "before", "after"):
        table.add_column(column, overflow="fold")
    for change in changes:
        before = "" if change.kind is ChangeKind.ADDED else json.dumps(change.before, ensure_ascii=False)
        after = "" if change.kind is ChangeKind.REMOVED else json.dumps(change.after, ensure_ascii=False)
        table.add_row(*(data_text(cell) for cell in (change.path, change.kind.value, before, after)))
    return table


def _unreached(record: SimulationRecord) -> dict[int, list[str]]:
    """What kept each call from the world (and its result), by entry: `KIND: EFFECT` per event."""
    by_entry = {} if record.perturbation is None else record.perturbation.events_by_entry()
    return {index: [f"{e.kind}: {e.effect}" for e in events] for index, events in by_entry.items()}


def _perturbations(perturbation: PerturbationRecord) -> Table:
    noticed = ", ".join(perturbation.noticed) or "none"
    table = Table(
        title=data_text(f"Perturbations (the agent noticed: {noticed})", style="bold"), title_justify="left"
    )
    for column in ("kind", "effect", "seat", "entry", "tool", "detail"):
        table.add_column(column, overflow="fold")
    for event in perturbation.events:
        effect = event.effect + (" (again)" if event.repeat else "")
        seat = "" if event.seat is None else event.seat.value
        entry = "" if event.entry is None else str(event.entry)
        cells = (event.kind, effect, seat, entry, event.tool or "", event.detail or "")
        table.add_row(*(data_text(cell) for cell in cells))
    return table


def _trajectory(entries: Sequence[Entry], mode: Mode, unreached: Mapping[int, list[str]]) -> Table:
    seats = [Side.AGENT] if mode is Mode.SOLO else [Side.AGENT, Side.USER]
    table = Table(
        title=data_text("Trajectory", style="bold"),
        title_justify="left",
        caption=None
        if mode is Mode.SOLO
        else "Messages reach both seats; tool calls and results only their own.",
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
    )
    table.add_column("#", justify="right")
    for seat in seats:
        table.add_column(data_text(seat.value), ratio=1, overflow="fold")
    for entry in entries:
        marks = unreached.get(entry.index)
        cells = [_entry_text(entry, marks) if entry.seat is seat else data_text() for seat in seats]
        table.add_row(data_text(str(entry.index)), *cells)
    return table


def _entry_text(entry: Entry, unreached: list[str] | None = None) -> Text:
    text = _entry_body(entry)
    if entry.usage is not None and entry.usage.truncated:
        text.append_text(data_text(f" {CUT_MARK}", style="bold yellow"))
    if unreached:
        text.append_text(data_text(" " + UNREACHED_MARK.format("; ".join(unreached)), style="bold yellow"))
    return text


def _entry_body(entry: Entry) -> Text:
    call = entry.tool_call
    if entry.kind is EntryKind.TOOL_CALL and call is not None:
        return data_text(f"→ {call.name}({json.dumps(call.arguments, ensure_ascii=False)})", style="cyan")
    if entry.kind is EntryKind.TOOL_RESULT and entry.result is not None:
        name = f"{call.name}: " if call is not None else ""
        return data_text(f"← {name}{entry.result.render()}", style="green" if entry.result.ok else "red")
    if entry.kind is EntryKind.REJECTED_REPLY and entry.rejected is not None:
        return data_text(f"✗ not accepted: {entry.rejected.summary()}", style="red")
    if entry.kind is EntryKind.ACTOR_ERROR:
        return data_text(f"! {entry.text or ''}", style="bold red")
    return data_text(entry.text or "")


def _failed_assertions(assertions: Sequence[AssertionRecord]) -> RenderableType:
    failed = [a for a in assertions if not a.passed]
    if not failed:
        return data_text(f"All {len(assertions)} assertions held.", style="green")
    table = Table(
        title=data_text(f"Failed assertions ({len(failed)} of {len(assertions)})", style="bold red")
    )
    table.title_justify = "left"
    for column in ("side", "assertion", "arguments", "must return", "observed", "error"):
        table.add_column(column, overflow="fold")
    for a in failed:
        cells = (a.side.value, a.name, _json(a.arguments), str(a.expected), _observed(a), a.error or "")
        table.add_row(*(data_text(cell) for cell in cells))
    return table


def _observed(assertion: AssertionRecord) -> str:
    """What the assertion saw, as JSON; empty when it reported nothing."""
    return "" if assertion.observed is None else _json(assertion.observed)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _actions(record: SimulationRecord) -> Table:
    table = Table(title=data_text("Reference actions", style="bold"), title_justify="left")
    for column in ("action", "seat", "performed", "by right seat"):
        table.add_column(column)
    for action in record.actions:
        cells = (action.name, action.side.value, _yes(action.performed), _yes(action.by_right_seat))
        table.add_row(*(data_text(cell) for cell in cells))
    return table


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"
