"""Which (task, trial) units a run still has to simulate, and the seed of each."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def pending_units(
    task_ids: Sequence[str], trials: int, run_seed: int, records: Iterable[SimulationRecord | Outcome]
) -> list[Unit]:
    """Units without a finished record, trial by trial so early results cover every task.

    `records` are the run's effective records (last per unit), or their outcomes; a unit whose record is
    an infrastructure error is pending again.
    """
    finished = {(record.task_id, record.trial) for record in records if not record.excluded}
    return [
        Unit(task_id=task_id, trial=trial, seed=derive_seed(run_seed, task_id, trial))
        for trial in range(trials)
        for task_id in task_ids
        if (task_id, trial) not in finished
    ]
