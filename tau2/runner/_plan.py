"""Which (task, trial) units a run still has to simulate, and the seed of each, made one at a time as the
executor takes them, so a run never holds its whole plan; and the stream of units, each tagged with its
run, that every executor takes them from."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence, Set
from typing import NamedTuple, Protocol

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


class ArmUnit(NamedTuple):
    """One simulation of one of the runs an executor drives together (an experiment's arms; a plain run is
    the only one): the run's index and the unit. A tuple, made once per simulation at little cost."""

    arm: int
    unit: Unit

    def dump(self) -> bytes:
        """The unit as a worker receives it: the run's index, a space, the unit as JSON."""
        return b"%d " % self.arm + self.unit.model_dump_json().encode()

    @classmethod
    def load(cls, data: bytes) -> ArmUnit:
        """The unit `dump` gave."""
        arm, _, unit = data.partition(b" ")
        return cls(int(arm), Unit.model_validate_json(unit))


class UnitStream(Protocol):
    """The units an executor simulates, each tagged with its run, handed out one at a time as the executor
    has room for them. A stream may hold units back until others end (an adaptive round depends on the
    outcomes of the one before), and hears of every unit it handed out: ended, or given back."""

    def __len__(self) -> int:
        """At most how many units it may still hand out (an executor starts no more lanes than that)."""
        ...

    async def take(self) -> ArmUnit | None:
        """The next unit to simulate, once there is one; None when there will be no more."""
        ...

    def hand_back(self, item: ArmUnit) -> None:
        """A unit taken but not simulated (its worker died): it is handed out again first."""
        ...

    def done(self, item: ArmUnit, record: SimulationRecord) -> None:
        """A unit taken ended with `record`, which the recorder has stored."""
        ...


class RunUnits:
    """One run's pending units as a stream: its queue, in order, every unit of arm 0."""

    def __init__(self, queue: UnitQueue) -> None:
        self._queue = queue

    def __len__(self) -> int:
        return len(self._queue)

    async def take(self) -> ArmUnit | None:
        return ArmUnit(0, self._queue.take()) if self._queue else None

    def hand_back(self, item: ArmUnit) -> None:
        self._queue.hand_back([item.unit])

    def done(self, item: ArmUnit, record: SimulationRecord) -> None:
        """Nothing to do: a run's plan never depends on its outcomes."""
