"""`tau2 export potato`: a Potato annotation project for the simulations of a run, following the Potato
design for τ-bench agent evaluation: task success, conversation quality, tool-use issues and a rationale
per simulation, shown beside the domain, the task specification and the conversation (and, on request, the
final outcome). Every exported string is made inert markup, and the data file splits only on `\n`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from pydantic import JsonValue

from tau2._display import inert
from tau2._jsonfile import json_line
from tau2.annotation._markup import inert_markup, inert_strings
from tau2.episode import Entry, EntryKind
from tau2.errors import UserInputError
from tau2.runner import check_new_run_dir
from tau2.runs import SimulationRecord, load_run
from tau2.tasks import Task, UserInstructions
from tau2.world import Side

CONFIG_FILE: Final = "config.yaml"
DATA_FILE: Final = "data/simulations.jsonl"
ANNOTATION_DIR: Final = "annotation_output"
TASK_SUCCESS: Final = "task_success"
SUCCESS_LABELS: Final = ("Success", "Partial Success", "Failure")
QUALITY: Final = "conversation_quality"
TOOL_USE: Final = "tool_use_issues"
TOOL_USE_LABELS: Final = (
    "Tool Call Error",
    "Wrong Arguments",
    "Missing Tool Call",
    "Redundant Tool Call",
    "Correct Tool Use",
)
RATIONALE: Final = "eval_rationale"


def simulation_id(record: SimulationRecord) -> str:
    """The item id of a simulation in the annotation project: task id and trial, as inert markup, with
    control characters written as escapes (a page's form field would turn a carriage return into `\\n`)."""
    return inert_markup(inert(f"{record.task_id}#{record.trial}"))


def export_project(run_dir: Path, out: Path, *, port: int = 8000, show_outcome: bool = False) -> int:
    """Write the project (config, data file, empty output folder) into `out`; returns the item count.
    Annotators judge blind unless `show_outcome`: the items then carry the assertions and the reward too."""
    run = load_run(run_dir)
    records = [record for record in run.records if record.trajectory is not None]
    if not records:
        raise UserInputError(f"{run_dir}: the run has no recorded simulations to annotate")
    _check_distinct_ids(run_dir, records)
    check_new_run_dir(out)
    tasks = _tasks(run.manifest.suite_path)
    (out / "data").mkdir(parents=True, exist_ok=True)
    (out / ANNOTATION_DIR).mkdir()
    with (out / DATA_FILE).open("w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            item = data_item(
                record, tasks.get(record.task_id), run.manifest.domain, show_outcome=show_outcome
            )
            handle.write(json_line(json.dumps(item, ensure_ascii=False)) + "\n")
    config = config_text(f"tau2 run {run.manifest.run_id}", port, show_outcome=show_outcome)
    (out / CONFIG_FILE).write_text(config, encoding="utf-8")
    return len(records)


def data_item(
    record: SimulationRecord, task: Task | None, domain: str, *, show_outcome: bool = False
) -> dict[str, JsonValue]:
    """One item of the data file, every string inert markup: `id`, `text` (the conversation as text),
    `domain`, the task specification, `conversation` (one line per event), and with `show_outcome` the
    `final_outcome` and the `reward`."""
    assert record.trajectory is not None
    lines = conversation_lines(record.trajectory.entries)
    item: dict[str, JsonValue] = {
        "id": simulation_id(record),
        "text": "\n".join(lines),
        "domain": domain,
        "task_spec": task_spec(task) if task is not None else record.task_id,
        "conversation": [*lines],
    }
    if show_outcome:
        item |= {"final_outcome": final_outcome(record), "reward": record.reward}
    return {key: inert_strings(value) for key, value in item.items()}


def conversation_lines(entries: list[Entry]) -> list[str]:
    """`[User]` / `[Agent]` messages, and `[Tool Call]` / `[Tool Result]` lines marked with the seat."""
    lines = []
    for entry in entries:
        seat = "agent" if entry.seat is Side.AGENT else "user"
        if entry.kind is EntryKind.MESSAGE:
            lines.append(f"[{'Agent' if entry.seat is Side.AGENT else 'User'}] {entry.text or ''}")
        elif entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
            arguments = json.dumps(entry.tool_call.arguments, ensure_ascii=False, sort_keys=True)
            lines.append(f"[Tool Call] ({seat}) {entry.tool_call.name}({arguments})")
        elif entry.kind is EntryKind.TOOL_RESULT and entry.result is not None:
            lines.append(f"[Tool Result] ({seat}) {entry.result.render()}")
        elif entry.kind is EntryKind.REJECTED_REPLY and entry.rejected is not None:
            lines.append(f"[Rejected] ({seat}) {entry.rejected.summary()}")
        elif entry.kind is EntryKind.ACTOR_ERROR:
            lines.append(f"[Error] ({seat}) {entry.text or ''}")
    return lines


def task_spec(task: Task) -> str:
    """What the task asks: its id, purpose, the customer's scenario, the ticket and the expected outcome."""
    parts = [f"Task: {task.id}"]
    if task.purpose:
        parts.append(f"Purpose: {task.purpose}")
    instructions = task.user_scenario.instructions
    if isinstance(instructions, UserInstructions):
        parts.append(f"Reason for call: {instructions.reason_for_call}")
        parts.append(f"Customer instructions: {instructions.task_instructions}")
    else:
        parts.append(f"Customer instructions: {instructions}")
    if task.ticket:
        parts.append(f"Ticket: {task.ticket}")
    checks = ", ".join(f"{check.name}({json.dumps(check.arguments)})" for check in task.evaluation.assertions)
    parts.append(f"Expected end state: {checks or 'none'}")
    if task.evaluation.expects_transfer:
        parts.append("Expected: a transfer to a human agent")
    return "\n".join(parts)


def final_outcome(record: SimulationRecord) -> str:
    """The termination, every assertion's outcome (with what it observed) and the reward."""
    lines = [f"Termination: {record.termination.value}"]
    for assertion in record.assertions:
        verdict = "passed" if assertion.passed else "FAILED"
        if assertion.observed is not None:
            verdict += f" (observed {json.dumps(assertion.observed, ensure_ascii=False)})"
        lines.append(f"Assertion {assertion.name}({json.dumps(assertion.arguments)}): {verdict}")
    lines.append(f"Reward: {record.reward}")
    return "\n".join(lines)


def config_text(name: str, port: int, *, show_outcome: bool = False) -> str:
    """The project's `config.yaml` (JSON is valid YAML, and needs no YAML writer); the page shows the final
    outcome only with `show_outcome`."""
    fields = [
        {"key": "domain", "type": "text", "label": "Domain"},
        {"key": "task_spec", "type": "text", "label": "Task specification"},
        {"key": "conversation", "type": "dialogue", "label": "Conversation"},
    ]
    if show_outcome:
        fields.append({"key": "final_outcome", "type": "text", "label": "Final outcome"})
    config = {
        "annotation_task_name": inert_markup(f"Agent evaluation: {name}"),
        "task_dir": ".",
        "data_files": [DATA_FILE],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": ANNOTATION_DIR,
        "port": port,
        "user_config": {"allow_all_users": True, "users": []},
        "instance_display": {"layout": {"direction": "vertical"}, "fields": fields},
        "annotation_schemes": [
            {
                "annotation_type": "radio",
                "name": TASK_SUCCESS,
                "description": "Did the agent accomplish the customer's goal?",
                "labels": [
                    {"name": label, "key_value": str(key)} for key, label in enumerate(SUCCESS_LABELS, 1)
                ],
                "label_requirement": {"required": True},
            },
            {
                "annotation_type": "likert",
                "name": QUALITY,
                "description": "How good was the agent's side of the conversation?",
                "size": 5,
                "min_label": "Very poor",
                "max_label": "Excellent",
            },
            {
                "annotation_type": "multiselect",
                "name": TOOL_USE,
                "description": "How did the agent use its tools? Select every issue seen.",
                "labels": list(TOOL_USE_LABELS),
            },
            {
                "annotation_type": "text",
                "name": RATIONALE,
                "description": "Why did you judge it so?",
                "multiline": True,
            },
        ],
    }
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"


def _check_distinct_ids(run_dir: Path, records: list[SimulationRecord]) -> None:
    """Refuse a run two of whose simulations would get the same item id once made inert markup (task ids
    differing only in `&`, `<`, `>` against their look-alikes): their annotations could not be told apart."""
    seen: dict[str, SimulationRecord] = {}
    for record in records:
        other = seen.setdefault(simulation_id(record), record)
        if other is not record:
            raise UserInputError(
                f"{run_dir}: tasks {other.task_id!r} and {record.task_id!r} would share the annotation item "
                f"{simulation_id(record)!r}; rename one"
            )


def _tasks(suite_path: str) -> dict[str, Task]:
    from tau2.tau2bench import load_task_file

    path = Path(suite_path)
    return {task.id: task for task in load_task_file(path)} if path.is_file() else {}
