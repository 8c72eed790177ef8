"""`tau2 import potato`: read the annotations a Potato server stored for an exported run back into the run
directory, as a sidecar of human labels that `tau2 report` sets against the assertion reward."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tau2._jsonfile import read_json, validation_error, write_json
from tau2.annotation._potato_export import (
    ANNOTATION_DIR,
    QUALITY,
    RATIONALE,
    SUCCESS_LABELS,
    TASK_SUCCESS,
    TOOL_USE,
    TOOL_USE_LABELS,
    simulation_id,
)
from tau2.errors import UserInputError
from tau2.runs import load_run

LABELS_FILE: Final = "human_labels.json"
"""Sidecar of a run directory holding the imported human labels."""
USER_STATE: Final = "user_state.json"
"""The file in which Potato keeps each annotator's answers (one folder per annotator)."""
RATIONALE_BEFORE: Final = "evaluation_rationale"
"""The rationale's scheme name in projects exported before it took the τ-bench design's name."""
_QUALITY_LABELS: Final = frozenset("12345")
"""The labels of the conversation-quality scale, as the export names them (any other is ignored)."""


class HumanLabel(BaseModel):
    """One annotator's judgement of one simulation."""

    model_config = ConfigDict(frozen=True)

    simulation: str
    task_id: str
    trial: int
    annotator: str
    task_success: str | None = None
    conversation_quality: int | None = None
    tool_use_issues: list[str] = Field(default_factory=list)
    rationale: str | None = None


class HumanLabels(BaseModel):
    """The sidecar: where the labels came from and the labels."""

    model_config = ConfigDict(frozen=True)

    source: str
    labels: list[HumanLabel]


def import_annotations(annotation_dir: Path, run_dir: Path, *, replace: bool = False) -> HumanLabels:
    """Read every annotator's answers under `annotation_dir` (the project or its output folder) for the
    simulations of the run at `run_dir`, and save them beside the run; returns them."""
    run = load_run(run_dir)
    target = run_dir / LABELS_FILE
    if target.exists() and not replace:
        raise UserInputError(f"{target}: labels were already imported; add --replace to read them again")
    folder = annotation_dir / ANNOTATION_DIR if (annotation_dir / ANNOTATION_DIR).is_dir() else annotation_dir
    states = sorted(folder.glob(f"*/{USER_STATE}"))
    if not states:
        raise UserInputError(f"{annotation_dir}: no annotations found (no */{USER_STATE})")
    simulations = {simulation_id(record): record for record in run.records}
    labels: list[HumanLabel] = []
    for state in states:
        stored = read_json(state)
        if not isinstance(stored, dict):
            raise UserInputError(f"{state}: expected a JSON object (an annotator's state as Potato keeps it)")
        answers = stored.get("instance_id_to_label_to_value", {})
        if not isinstance(answers, dict):
            raise UserInputError(f"{state}: instance_id_to_label_to_value: expected an object")
        for item, pairs in sorted(answers.items()):
            record = simulations.get(item)
            if record is None:
                raise UserInputError(f"{state}: {item!r} is not a simulation of the run {run_dir}")
            labels.append(
                _label(state, f"{record.task_id}#{record.trial}", record.task_id, record.trial, pairs)
            )
    imported = HumanLabels(source=str(folder), labels=labels)
    write_json(target, imported.model_dump(mode="json"))
    return imported


def load_labels(run_dir: Path) -> HumanLabels | None:
    """The imported labels of a run, or None when none were imported."""
    path = run_dir / LABELS_FILE
    if not path.is_file():
        return None
    try:
        return HumanLabels.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None


def _label(state: Path, simulation: str, task_id: str, trial: int, pairs: Any) -> HumanLabel:
    """One annotator's answers for one simulation: Potato stores (label {schema, name}, value) pairs."""
    answers: dict[str, list[tuple[str, str]]] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], dict):
            answers.setdefault(str(pair[0].get("schema")), []).append(
                (str(pair[0].get("name")), str(pair[1]))
            )
    success = [name for name, _ in answers.get(TASK_SUCCESS, []) if name in SUCCESS_LABELS]
    quality = [int(name) for name, _ in answers.get(QUALITY, []) if name in _QUALITY_LABELS]
    given = answers.get(RATIONALE, []) + answers.get(RATIONALE_BEFORE, [])
    rationale = [value for _, value in given if value.strip()]
    return HumanLabel(
        simulation=simulation,
        task_id=task_id,
        trial=trial,
        annotator=state.parent.name,
        task_success=success[-1] if success else None,
        conversation_quality=quality[-1] if quality else None,
        tool_use_issues=[name for name, _ in answers.get(TOOL_USE, []) if name in TOOL_USE_LABELS],
        rationale=rationale[-1] if rationale else None,
    )
