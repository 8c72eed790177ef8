"""Suites: our native, versioned task-file format, written as canonical JSON so equal inputs give
byte-identical files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, ValidationInfo, field_validator

from tau2._jsonfile import canonical_json, collector_paused, read_json, validation_error, write_json
from tau2._registry import refuse_data_reference
from tau2.tasks._task import Task

SUITE_FORMAT: Final = "tau2-suite"


class Suite(BaseModel):
    """A reproducible collection of tasks of one domain, with how it was made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["tau2-suite"] = SUITE_FORMAT
    format_version: Literal[1] = 1
    name: str
    domain: str
    catalog_version: str | None = None
    generator: dict[str, JsonValue] = Field(default_factory=dict)
    """The generator options the suite was made with."""
    seed: int | None = None
    tasks: list[Task]

    @field_validator("tasks")
    @classmethod
    def _check_tasks(cls, tasks: list[Task], info: ValidationInfo) -> list[Task]:
        duplicate = find_duplicate([task.id for task in tasks])
        if duplicate is not None:
            first, second = duplicate
            raise ValueError(f"duplicate task id {tasks[second].id!r} at [{first}] and [{second}]")
        domain = info.data.get("domain")
        for index, task in enumerate(tasks):
            if task.domain != domain:
                raise ValueError(f"[{index}] has domain {task.domain!r}, not the suite's {domain!r}")
        return tasks

    def to_json(self) -> str:
        """The canonical file text (fields in model order, indent 2, final newline)."""
        return canonical_json(self.model_dump(mode="json"))

    def save(self, path: Path) -> None:
        """Write the suite to `path` as canonical JSON."""
        write_json(path, self.model_dump(mode="json"))


def is_suite_document(data: Any) -> bool:
    """Whether parsed JSON claims to be one of our suite files."""
    return isinstance(data, dict) and data.get("format") == SUITE_FORMAT


def parse_suite(data: Any, path: Path) -> Suite:
    """Validate parsed JSON as a suite; errors name `path` and the failing field. A domain the suite names
    by a `module:attribute` reference the user has not named is refused: a file never imports code."""
    try:
        suite = Suite.model_validate(data)
    except ValidationError as error:
        raise validation_error(path, error) from None
    refuse_data_reference(suite.domain, "domain", f"{path}: domain")
    return suite


def load_suite(path: Path) -> Suite:
    """Read a suite file."""
    with collector_paused():
        return parse_suite(read_json(path), path)


def find_duplicate(ids: Sequence[str]) -> tuple[int, int] | None:
    """(earlier, later) indices of the first repeated ID, or None when all IDs are unique."""
    seen: dict[str, int] = {}
    for index, task_id in enumerate(ids):
        if task_id in seen:
            return seen[task_id], index
        seen[task_id] = index
    return None
