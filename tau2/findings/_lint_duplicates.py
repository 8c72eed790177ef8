"""Lint check for duplicated tasks: the same content under two ids (a run then weighs it twice), or one id
whose content differs between the files linted together (two versions of a task that results would
compare as if they were one)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tau2._jsonfile import canonical_json
from tau2.tasks import Task
from tau2.tau2bench import METADATA_KEY

DUPLICATE_TASK = "duplicate_task"


def content_key(task: Task) -> str:
    """A hash of what the task asks and how it is judged: everything but its id and its annotations (of the
    fields τ²-bench keeps in metadata, only the documents a task requires are content)."""
    data = task.model_dump(mode="json", exclude={"id", "metadata"})
    kept = task.metadata.get(METADATA_KEY)
    data["required_documents"] = kept.get("required_documents") if isinstance(kept, dict) else None
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def duplicate_findings(files: Sequence[tuple[str, Sequence[Task]]]) -> list[tuple[str, str, str]]:
    """(file, task id, detail) for each task that repeats an earlier task's content under another id, or
    an earlier file's id with other content; files and tasks are taken in the order given."""
    by_content: dict[str, tuple[str, str]] = {}
    by_id: dict[str, tuple[str, str]] = {}
    found = []
    for file, tasks in files:
        for task in tasks:
            key = content_key(task)
            same_content = by_content.setdefault(key, (file, task.id))
            if same_content[1] != task.id:
                found.append((file, task.id, f"same content as task {same_content[1]} ({same_content[0]})"))
            same_id = by_id.setdefault(task.id, (file, key))
            if same_id[1] != key:
                found.append((file, task.id, f"the same id holds other content in {same_id[0]}"))
    return found
