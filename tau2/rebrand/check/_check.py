"""Checking a rebrand: every renamed task's reference actions replay to the reward the original's did, and
the original reference actions, replayed on the rebranded world, fail (the memorisation check)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from tau2.rebrand import Rebrand, RenamedTask, RenamedWorld
from tau2.rebrand.check._score import replay_reward, writes_records


class TaskCheck(BaseModel):
    """One task's rewards: its reference on its own world, renamed on the rebranded world, and the original
    reference on the rebranded world (what a model that memorised the original would do)."""

    model_config = ConfigDict(frozen=True)

    file: str
    task_id: str
    original: float
    rebranded: float
    memorised: float
    writes: bool
    """The reference actions change the domain's records (what identifiers name)."""

    @property
    def kept(self) -> bool:
        """The renamed reference scores what the original did."""
        return self.rebranded == self.original


class Summary(BaseModel):
    """The check of a whole rebrand."""

    model_config = ConfigDict(frozen=True)

    tasks: int
    kept: int
    """Tasks whose renamed reference scores what the original did."""
    solved: int
    """Tasks whose renamed reference scores 1.0."""
    writing: int
    """Tasks whose reference writes records and scores 1.0 on the original world."""
    memorised_fail: int
    """Of those, the tasks on which the original reference scores 0 on the rebranded world."""

    @property
    def memorisation_share(self) -> float | None:
        """The share of writing tasks the original reference fails on the rebranded world."""
        return self.memorised_fail / self.writing if self.writing else None


@dataclass(frozen=True)
class Check:
    """Every task's check and their summary."""

    tasks: list[TaskCheck]
    summary: Summary


def check_task(
    renamed: RenamedTask, file: str, source: Path | None, target: Path, records: tuple[str, ...]
) -> TaskCheck:
    """One task's rewards on both worlds."""
    original, task = renamed.original, renamed.task
    info = original.evaluation.communicate_info or []
    return TaskCheck(
        file=file,
        task_id=original.id,
        original=replay_reward(original, original.evaluation.solution, info, source),
        rebranded=replay_reward(
            task, task.evaluation.solution, task.evaluation.communicate_info or [], target
        ),
        memorised=replay_reward(task, original.evaluation.solution, info, target),
        writes=writes_records(original, source, records),
    )


def check_rebrand(rebrand: Rebrand) -> Check:
    """Score every task of a rebrand (its target must still hold what it wrote), by task file."""
    files = {id(task): path.name for path, tasks in rebrand.task_files for task in tasks}
    return check_world(rebrand.world, lambda task: files[id(task)])


def check_world(world: RenamedWorld, file: Callable[[RenamedTask], str] = lambda _: "") -> Check:
    """Score every task of a renamed world (its target must still hold what was written); `file` names the
    task file each task came from."""
    declaration = world.domain.identifiers
    records = () if declaration is None else declaration.records
    checks = [
        check_task(renamed, file(renamed), world.source, world.target, records) for renamed in world.tasks
    ]
    writing = [check for check in checks if check.writes and check.original == 1.0]
    summary = Summary(
        tasks=len(checks),
        kept=sum(check.kept for check in checks),
        solved=sum(check.rebranded == 1.0 for check in checks),
        writing=len(writing),
        memorised_fail=sum(check.memorised == 0.0 for check in writing),
    )
    return Check(checks, summary)
