"""Renaming a domain's data directory and tasks into a new directory: the data files renamed by one
renaming, then each task renamed by replaying its reference actions on both worlds (`rename_world`); and
a whole rebrand, which reads the task files and writes them back renamed in their own form (`rebrand`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._delta import Delta
from tau2.rebrand._documents import task_documents_of, task_texts
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
from tau2.rebrand._renaming import Renaming, build_renaming
from tau2.rebrand._survivors import SurvivorSearch
from tau2.tasks import Domain, Task
from tau2.world import Identifiers

MAX_SURVIVORS = 20
"""Surviving identifiers listed at most (the count is always exact)."""


@dataclass
class RenamedWorld:
    """A renamed data directory and the tasks renamed for it, with every old identifier that survived."""

    domain: Domain[Any]
    source: Path
    target: Path
    renaming: Renaming
    data_files: list[Path]
    tasks: list[RenamedTask]
    survivors: list[str] = field(default_factory=list)
    """`where: identifier` lines, at most `MAX_SURVIVORS`."""
    survivor_count: int = 0

    @property
    def consistent(self) -> bool:
        """No task behaved otherwise than the image of the original, and no old identifier survived."""
        return self.survivor_count == 0 and not any(task.problems for task in self.tasks)


@dataclass
class Rebrand:
    """A rebranded directory: the renamed world, the task files written, and the parts of the delta that
    changed nothing there."""

    world: RenamedWorld
    task_files: list[tuple[Path, list[RenamedTask]]]
    notes: list[str] = field(default_factory=list)
    """Parts of the delta that changed nothing here (a policy phrase no text writes)."""

    @property
    def domain(self) -> Domain[Any]:
        return self.world.domain

    @property
    def tasks(self) -> list[RenamedTask]:
        return self.world.tasks


def declaration_of(domain: Domain[Any]) -> Identifiers:
    """The domain's identifier declaration; a domain without one cannot be renamed."""
    if domain.identifiers is None:
        raise UserInputError(f"domain {domain.name!r} declares no identifiers: it cannot be renamed")
    return domain.identifiers


def source_directory(domain: Domain[Any], source: Path | None) -> Path:
    """The data directory to rename: `source`, or the pack's own data."""
    if source is not None:
        return source
    own = declaration_of(domain).data_dir
    if own is None:
        raise UserInputError(f"domain {domain.name!r} ships no data directory: give one (--data-dir)")
    return own


def rename_world(
    domain: Domain[Any],
    delta: Delta,
    tasks: Sequence[Task],
    target: Path,
    *,
    seed: int,
    source: Path | None = None,
) -> RenamedWorld:
    """Write `domain`'s data files (of `source`, default its own) renamed into the directory `target`, and
    rename `tasks` for it: one bijection per identifier kind drawn with `seed`, the delta's names and value
    rules, each task checked by replaying its reference actions on both worlds."""
    declaration = declaration_of(domain)
    source = source_directory(domain, source)
    data = read_data_files(declaration, source)
    documents = [file.content for file in data if file.form is not Form.TEXT]
    texts = [file.content for file in data if file.form is Form.TEXT]
    renaming = build_renaming(domain, delta, seed, documents, texts, tasks)
    renamed_data = [_renamed(renaming, file) for file in data]
    for file in renamed_data:
        write_data_file(target, file)
    renamed = [rename_task(renaming, task, source, target) for task in tasks]
    world = RenamedWorld(domain, source, target, renaming, [file.relative for file in data], renamed)
    _find_survivors(world, renamed_data)
    return world


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
    data or the default suite) renamed by `delta` into the directory `target`, each task file in its form."""
    source = source_directory(domain, source)
    files = [read_task_file(path, domain.name) for path in find_task_files(domain, source, suites)]
    names = [file.name for file in files] + [str(path) for path in _data_names(domain, source)]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise UserInputError(f"two task or data files would both be written as {duplicate!r}")
    tasks = [task for file in files for task in file.tasks]
    world = rename_world(
        domain, delta, tasks, target, seed=delta.seed if seed is None else seed, source=source
    )
    written: list[tuple[Path, list[RenamedTask]]] = []
    start = 0
    for file in files:
        renamed = world.tasks[start : start + len(file.tasks)]
        start += len(file.tasks)
        written.append((write_task_file(target, file, [task.task for task in renamed]), renamed))
    texts = [
        (source / relative).read_text(encoding="utf-8")
        for relative in world.data_files
        if relative.suffix == ".md"
    ]
    return Rebrand(world, written, _unused_phrases(delta, [*texts, *task_texts(tasks)]))


def _data_names(domain: Domain[Any], source: Path) -> list[Path]:
    """Where the data files of `source` are written (without reading them)."""
    directory = source
    found: set[Path] = set()
    for pattern in declaration_of(domain).data_files:
        found.update(path.relative_to(directory) for path in directory.glob(pattern) if path.is_file())
    return sorted(found)


def _unused_phrases(delta: Delta, texts: list[str]) -> list[str]:
    """A note for each value rule whose phrases no text writes (a policy worded otherwise)."""
    return [
        f"{rule.name}: none of its phrases occurs in the policy, documents or tasks"
        for rule in delta.rules
        if rule.phrases and not any(phrase in text for phrase in rule.phrases for text in texts)
    ]


def _renamed(renaming: Renaming, file: DataFile) -> DataFile:
    content = renaming.text(file.content) if file.form is Form.TEXT else renaming.document(file.content)
    return DataFile(file.relative, file.form, content)


def _find_survivors(world: RenamedWorld, data: list[DataFile]) -> None:
    """Fill in the old identifiers still present in the written data and the renamed tasks."""
    renaming = world.renaming
    search = SurvivorSearch(renaming.kinds, renaming.identifiers, renaming.protected)
    found: list[str] = []
    for file in data:
        found += [
            f"{file.relative}: {identifier}"
            for identifier in (
                search.in_text(file.content) if file.form is Form.TEXT else search.in_document(file.content)
            )
        ]
    for renamed in world.tasks:
        own = search.extended(renamed.renaming.identifiers)
        where = f"task {renamed.task.id}"
        for document, root in task_documents_of(renamed.task):
            found += [f"{where}: {identifier}" for identifier in own.in_document(document, root)]
        for text in task_texts([renamed.task]):
            found += [f"{where}: {identifier}" for identifier in own.in_text(text)]
    world.survivor_count = len(found)
    world.survivors = found[:MAX_SURVIVORS]
