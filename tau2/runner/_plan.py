"""Which (task, trial) units a run still has to simulate, and the seed of each; made one at a time as the
executor takes them, so a run never holds its whole plan."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence, Set

from pydantic import BaseModel, ConfigDict

from tau2.runner._progress import Outcome
from tau2.runner._seeds import derive_seed
from tau2.runs import SimulationRecord


class Unit(BaseModel):
    """One simulation to run: a task, a trial number (0-based) and the seed derived for them."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    seed: int


def finished_units(records: Iterable[SimulationRecord | Outcome]) -> set[tuple[str, int]]:
    """The (task, trial) of every record that is not an infrastructure error."""
    return {(record.task_id, record.trial) for record in records if not record.excluded}


def pending_units(
    task_ids: Sequence[str], trials: int, run_seed: int, records: Iterable[SimulationRecord | Outcome]
) -> list[Unit]:
    """Units without a finished record, trial by trial so early results cover every task.

    `records` are the run's effective records (last per unit), or their outcomes; a unit whose record is
    an infrastructure error is pending again.
    """
    return list(planned_units(task_ids, trials, run_seed, finished_units(records)))


def planned_units(
    task_ids: Sequence[str], trials: int, run_seed: int, finished: Set[tuple[str, int]]
) -> Iterator[Unit]:
    """`pending_units` made one at a time, given the finished (task, trial) pairs."""
    return (
        Unit(task_id=task_id, trial=trial, seed=derive_seed(run_seed, task_id, trial))
        for trial in range(trials)
        for task_id in task_ids
        if (task_id, trial) not in finished
    )


class UnitQueue:
    """The units an executor still has to hand out: planned units made as they are taken, after any handed
    back (their worker died), which go first. Its length is the number left."""

    def __init__(self, planned: Iterator[Unit], count: int) -> None:
        self._planned = planned
        self._back: deque[Unit] = deque()
        self._count = count

    def __len__(self) -> int:
        return self._count

    def take(self) -> Unit:
        """The next unit (the queue must not be empty)."""
        self._count -= 1
        return self._back.popleft() if self._back else next(self._planned)

    def hand_back(self, units: Sequence[Unit]) -> None:
        """Units taken but not simulated, in order: they are taken again first."""
        self._back.extendleft(reversed(units))
        self._count += len(units)
