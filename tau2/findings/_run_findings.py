"""The findings a run records with each simulation as it is judged: the simulated-user checks of its
trajectory, its task's defects and its collateral damage, each piece of work done once per run rather than
once per simulation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tau2.episode import Trajectory
from tau2.errors import UserInputError
from tau2.findings._collateral import Collateral, ReferenceWrites
from tau2.findings._lint import task_errors
from tau2.findings._seat_tools import SeatTools
from tau2.findings._user_check import UserFinding
from tau2.findings._user_checks import audit_trajectory
from tau2.tasks import Domain, Task, get_domain
from tau2.world import RecordWrite, StateChange


class RunFindings:
    """The findings on the simulations of one run of `domain` on `data_dir` (None: the domain's own data):
    the seats' tools are worked out once per set of customer tools a task offers, and each task is linted
    and its reference solution replayed once (by id; the tasks of one run never change). Pickled, it
    travels empty (by the domain's name), so a worker process gets its own caches."""

    def __init__(self, domain: Domain[Any], data_dir: Path | None) -> None:
        self.domain = domain
        self.data_dir = data_dir
        self._seats: dict[tuple[str, ...] | None, SeatTools] = {}
        self._defects: dict[str, list[str] | UserInputError] = {}
        self._references: dict[str, ReferenceWrites | None] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return _by_name, (self.domain.name, self.data_dir)

    def user_findings(self, trajectory: Trajectory, task: Task | None) -> list[UserFinding]:
        """Every simulated-user check that fires on an interactive `trajectory` of `task` (the checks that
        read the task skipped when it is None)."""
        offered = None if task is None or task.user_tools is None else tuple(task.user_tools)
        seats = self._seats.get(offered)
        if seats is None:
            seats = self._seats[offered] = SeatTools.of(self.domain, task)
        return audit_trajectory(trajectory, seats, task)

    def task_defects(self, task: Task) -> list[str]:
        """The error checks of `tau2 lint` that fire on `task`; raises `UserInputError` when its data
        cannot be read (every time it is asked)."""
        defects = self._defects.get(task.id)
        if defects is None:
            try:
                defects = task_errors(task, self.data_dir)
            except UserInputError as error:
                defects = error
            self._defects[task.id] = defects
        if isinstance(defects, UserInputError):
            raise defects
        return defects

    def collateral(
        self,
        task: Task,
        writes: Mapping[str, RecordWrite],
        changes: Sequence[StateChange],
        *,
        base: BaseModel | None = None,
    ) -> Collateral | None:
        """What a simulation of `task` that made `changes`, touching the records `writes`, wrote beside
        the task's reference solution; None when the task's world cannot be set up. With `base` (a world
        renamed for this one simulation, `task` renamed with it) the reference is replayed on that state,
        for this simulation alone."""
        if base is not None:
            try:
                return ReferenceWrites.of(task, self.data_dir, base).compare(writes, changes)
            except UserInputError:
                return None
        if task.id not in self._references:
            try:
                self._references[task.id] = ReferenceWrites.of(task, self.data_dir)
            except UserInputError:
                self._references[task.id] = None
        reference = self._references[task.id]
        return None if reference is None else reference.compare(writes, changes)


def _by_name(domain: str, data_dir: Path | None) -> RunFindings:
    """A `RunFindings` with empty caches, for the domain registered as `domain` (unpickling)."""
    return RunFindings(get_domain(domain), data_dir)
