"""A domain's data directory as files: its data (JSON and TOML databases, Markdown texts, JSON documents)
and its task files (τ²-bench files, task folders, our suites), read and written back in the same form,
and the output directory written whole or not at all."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import tomli_w

from tau2._jsonfile import MAX_JSON_BYTES, read_json, read_text_bounded, read_toml_file, write_json
from tau2.errors import UserInputError
from tau2.tasks import Suite, Task, is_suite_document, parse_suite
from tau2.tau2bench import load_task_file, task_to_tau2
from tau2.world import Identifiers

TASK_FILES = "task_*.json"
"""The files of a τ²-bench task folder, one task each."""


class Form(StrEnum):
    """How a data file is written."""

    JSON = "json"
    TOML = "toml"
    TEXT = "text"


@dataclass
class DataFile:
    """One data file: where it lies in the directory, its form and its content (a document or a text)."""

    relative: Path
    form: Form
    content: Any


def _matching(directory: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The paths under `directory` matching the glob patterns, relative, sorted, each once."""
    found: set[Path] = set()
    for pattern in patterns:
        found.update(path.relative_to(directory) for path in directory.glob(pattern))
    return sorted(found)


def read_data_files(declaration: Identifiers, directory: Path) -> list[DataFile]:
    """Every data file the declaration names in `directory`; a directory without any is refused."""
    if not directory.is_dir():
        raise UserInputError(f"{directory}: no such directory")
    files = [
        relative
        for relative in _matching(directory, declaration.data_files)
        if (directory / relative).is_file()
    ]
    if not files:
        raise UserInputError(
            f"{directory}: none of the domain's data files ({', '.join(declaration.data_files)}) is there"
        )
    return [_read(directory, relative) for relative in files]


def _read(directory: Path, relative: Path) -> DataFile:
    path = directory / relative
    if path.suffix == ".json":
        return DataFile(relative, Form.JSON, read_json(path))
    if path.suffix == ".toml":
        return DataFile(relative, Form.TOML, read_toml_file(path, MAX_JSON_BYTES))
    try:
        return DataFile(relative, Form.TEXT, read_text_bounded(path))
    except UnicodeDecodeError:
        raise UserInputError(f"{path}: not UTF-8 text") from None


def write_data_file(directory: Path, file: DataFile) -> None:
    """Write one data file under `directory`, in its form."""
    path = directory / file.relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if file.form is Form.JSON:
        write_json(path, file.content)
    elif file.form is Form.TOML:
        path.write_text(tomli_w.dumps(file.content), encoding="utf-8", newline="\n")
    else:
        path.write_text(file.content, encoding="utf-8", newline="\n")


class TaskForm(StrEnum):
    """How a task file holds its tasks."""

    SUITE = "suite"
    LIST = "list"
    """A τ²-bench task file: a JSON array."""
    OBJECT = "object"
    """A τ²-bench task file: an object with key `tasks`."""
    FOLDER = "folder"
    """A τ²-bench task folder: one `task_*.json` per task."""


@dataclass
class TaskFile:
    """One task file or folder: its name in the output, its form, its tasks, and what else it holds."""

    name: str
    form: TaskForm
    tasks: list[Task]
    extra: Any = None
    """The suite (suites), the file's other keys (objects), the file names (folders)."""


def task_file_paths(declaration: Identifiers, directory: Path) -> list[Path]:
    """The task files and folders the declaration names in `directory`, skipping anything that is not one."""
    paths = []
    for relative in _matching(directory, declaration.task_files):
        path = directory / relative
        if path.is_dir() and not any(path.glob(TASK_FILES)):
            continue
        paths.append(path)
    return paths


def read_task_file(path: Path, domain: str) -> TaskFile:
    """The tasks of a task file or folder of `domain`, with its form."""
    tasks = load_task_file(path, domain)
    if path.is_dir():
        return TaskFile(
            path.name, TaskForm.FOLDER, tasks, [file.name for file in sorted(path.glob(TASK_FILES))]
        )
    data = read_json(path)
    if is_suite_document(data):
        return TaskFile(path.name, TaskForm.SUITE, tasks, parse_suite(data, path))
    if isinstance(data, dict):
        return TaskFile(
            path.name, TaskForm.OBJECT, tasks, {key: value for key, value in data.items() if key != "tasks"}
        )
    return TaskFile(path.name, TaskForm.LIST, tasks)


def write_task_file(directory: Path, file: TaskFile, tasks: list[Task]) -> Path:
    """Write `tasks` in the form of `file` under `directory`; the path written."""
    path = directory / file.name
    if file.form is TaskForm.SUITE:
        suite: Suite = file.extra
        suite.model_copy(update={"tasks": tasks}).save(path)
    elif file.form is TaskForm.FOLDER:
        path.mkdir()
        for name, task in zip(file.extra, tasks, strict=True):
            write_json(path / name, task_to_tau2(task))
    elif file.form is TaskForm.OBJECT:
        write_json(path, {**file.extra, "tasks": [task_to_tau2(task) for task in tasks]})
    else:
        write_json(path, [task_to_tau2(task) for task in tasks])
    return path


@contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """A new empty directory beside `target` to write into; it becomes `target` when the block ends
    normally and is removed otherwise. A `target` that exists and is not an empty directory is refused
    before anything is written."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserInputError(f"{target}: exists and is not an empty directory; refusing to overwrite it")
    parent = target.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=parent))
    try:
        yield staging
        if target.exists():
            target.rmdir()
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
