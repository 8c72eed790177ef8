"""Rebranding a domain's data directory and task files into a new directory: the data files renamed by one
renaming, then each task renamed by replaying its reference actions on both worlds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._delta import Delta
from tau2.rebrand._files import (
    DataFile,
    Form,
    read_data_files,
    read_task_file,
    task_file_paths,
    write_data_file,
    write_task_file,
)
from tau2.rebrand._lockstep import RenamedTask, rename_task
from tau2.rebrand._renaming import Renaming, build_renaming, task_documents_of, task_texts
from tau2.rebrand._survivors import SurvivorSearch
from tau2.world import Domain, Identifiers

MAX_SURVIVORS = 20
"""Surviving identifiers listed at most (the count is always exact)."""


@dataclass
class Rebrand:
    """What a rebrand wrote and what it found: the renamed tasks (each with its problems) and every old
    identifier that survived anywhere."""

    domain: Domain[Any]
    source: Path
    target: Path
    renaming: Renaming
    data_files: list[Path]
    task_files: list[tuple[Path, list[RenamedTask]]]
    survivors: list[str] = field(default_factory=list)
    """`where: identifier` lines, at most `MAX_SURVIVORS`."""
    survivor_count: int = 0

    @property
    def tasks(self) -> list[RenamedTask]:
        """Every renamed task, file by file."""
        return [task for _, tasks in self.task_files for task in tasks]

    @property
    def consistent(self) -> bool:
        """No task behaved otherwise than the image of the original, and no old identifier survived."""
        return self.survivor_count == 0 and not any(task.problems for task in self.tasks)


def declaration_of(domain: Domain[Any]) -> Identifiers:
    """The domain's identifier declaration; a domain without one cannot be rebranded."""
    if domain.identifiers is None:
        raise UserInputError(f"domain {domain.name!r} declares no identifiers: it cannot be rebranded")
    return domain.identifiers


def source_directory(domain: Domain[Any], source: Path | None) -> Path:
    """The data directory to rebrand: `source`, or the pack's own data."""
    if source is not None:
        return source
    own = declaration_of(domain).data_dir
    if own is None:
        raise UserInputError(f"domain {domain.name!r} ships no data directory: give one (--data-dir)")
    return own


def find_task_files(domain: Domain[Any], source: Path, suites: Sequence[Path]) -> list[Path]:
    """The task files to rebrand: those given, else those of the data directory, else the domain's
    default suite."""
    if suites:
        return list(suites)
    found = task_file_paths(declaration_of(domain), source)
    if found:
        return found
    if domain.default_suite is None:
        raise UserInputError(f"{source}: no task files, and domain {domain.name!r} has no default suite")
    return [domain.default_suite]


def rebrand(
    domain: Domain[Any],
    delta: Delta,
    target: Path,
    *,
    seed: int | None = None,
    source: Path | None = None,
    suites: Sequence[Path] = (),
) -> Rebrand:
    """Write `domain`'s data (of `source`, default its own) and tasks (of `suites`, default those beside the
    data or the default suite) renamed by `delta` into the empty directory `target`."""
    declaration = declaration_of(domain)
    source = source_directory(domain, source)
    data = read_data_files(declaration, source)
    files = [read_task_file(path, domain.name) for path in find_task_files(domain, source, suites)]
    names = [file.name for file in files] + [str(file.relative) for file in data]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise UserInputError(f"two task or data files would both be written as {duplicate!r}")
    tasks = [task for file in files for task in file.tasks]
    documents = [file.content for file in data if file.form is not Form.TEXT]
    texts = [file.content for file in data if file.form is Form.TEXT]
    renaming = build_renaming(domain, delta, delta.seed if seed is None else seed, documents, texts, tasks)
    renamed_data = [_renamed(renaming, file) for file in data]
    for renamed_file in renamed_data:
        write_data_file(target, renamed_file)
    written: list[tuple[Path, list[RenamedTask]]] = []
    for task_file in files:
        renamed = [rename_task(renaming, task, source, target) for task in task_file.tasks]
        write_task_file(target, task_file, [task.task for task in renamed])
        written.append((target / task_file.name, renamed))
    result = Rebrand(domain, source, target, renaming, [file.relative for file in data], written)
    _find_survivors(result, renamed_data)
    return result


def _renamed(renaming: Renaming, file: DataFile) -> DataFile:
    content = renaming.text(file.content) if file.form is Form.TEXT else renaming.document(file.content)
    return DataFile(file.relative, file.form, content)


def _find_survivors(result: Rebrand, data: list[DataFile]) -> None:
    """Fill in the old identifiers still present in the written data and tasks."""
    renaming = result.renaming
    search = SurvivorSearch(renaming.kinds, renaming.identifiers, renaming.protected)
    found: list[str] = []

    def note(where: str, identifiers: Any) -> None:
        for identifier in identifiers:
            found.append(f"{where}: {identifier}")

    for file in data:
        where = str(file.relative)
        note(
            where,
            search.in_text(file.content) if file.form is Form.TEXT else search.in_document(file.content),
        )
    for path, tasks in result.task_files:
        for renamed in tasks:
            own = search.extended(renamed.renaming.identifiers)
            where = f"{path.name}: task {renamed.task.id}"
            for document, root in task_documents_of(renamed.task):
                note(where, own.in_document(document, root))
            for text in task_texts([renamed.task]):
                note(where, own.in_text(text))
    result.survivor_count = len(found)
    result.survivors = found[:MAX_SURVIVORS]
