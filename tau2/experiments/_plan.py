"""Which simulations an experiment runs next: what every arm's store holds per (task, trial), the units
that complete the arms' trials so far, the full plan without a budget, and a round of adaptive trials.
Every list is ordered trial by trial, task by task, arm by arm, so an interruption leaves the arms
balanced."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from tau2.metrics import TaskCounts
from tau2.runner import ArmUnit, Unit, derive_seed
from tau2.runs import SimulationRecord


class Ended(NamedTuple):
    """What the experiment keeps of one record: its outcome and cost, never its transcript."""

    excluded: bool
    """An infrastructure error: missing, and run again on resume."""
    success: bool
    cost: float
    """What its priced model calls cost."""
    unpriced: bool
    """Whether some of its model calls had no price."""

    @classmethod
    def of(cls, record: SimulationRecord) -> Ended:
        """What is kept of `record`."""
        usage = record.usage.values()
        unpriced = any(seat.cost is None and seat.calls for seat in usage)
        return cls(record.excluded, record.success, record_cost(record), unpriced)


class ArmsState:
    """The outcome of the latest record of every (task, trial) in every arm, kept up to date as records
    arrive."""

    def __init__(
        self, task_ids: Sequence[str], seed: int, stored: Sequence[Iterable[SimulationRecord]]
    ) -> None:
        self.task_ids = list(task_ids)
        self.seed = seed
        self._ended: list[dict[str, dict[int, Ended]]] = [{} for _ in stored]
        for arm, records in enumerate(stored):
            for record in records:
                self.add(arm, record)

    @property
    def arms(self) -> int:
        return len(self._ended)

    def add(self, arm: int, record: SimulationRecord) -> None:
        """A record arrived for `arm` (it supersedes an earlier one of the same unit)."""
        self._ended[arm].setdefault(record.task_id, {})[record.trial] = Ended.of(record)

    def arm_ended(self, arm: int) -> list[Ended]:
        """The outcomes of arm `arm` (its index), one per (task, trial) with a record."""
        return [ended for trials in self._ended[arm].values() for ended in trials.values()]

    def ended(self) -> list[Ended]:
        """Every arm's outcomes."""
        return [ended for arm in range(self.arms) for ended in self.arm_ended(arm)]

    def started(self, task_id: str) -> int:
        """Trials of `task_id` begun in any arm: its trials 0 … n − 1 (adaptive rounds add them in order)."""
        return max(
            (max(tasks[task_id], default=-1) + 1 for tasks in self._ended if task_id in tasks), default=0
        )

    def unit(self, arm: int, task_id: str, trial: int) -> ArmUnit:
        """The unit of (task, trial) in `arm`, with the seed every arm shares for it."""
        seed = derive_seed(self.seed, task_id, trial)
        return ArmUnit(arm, Unit(task_id=task_id, trial=trial, seed=seed))

    def missing(self, trials: Sequence[tuple[str, int]]) -> list[ArmUnit]:
        """The units of `trials` (task, trial) without a valid record, arm by arm within each."""
        return [
            self.unit(arm, task_id, trial)
            for task_id, trial in trials
            for arm, tasks in enumerate(self._ended)
            if (ended := tasks.get(task_id, {}).get(trial)) is None or ended.excluded
        ]

    def unfinished(self) -> list[ArmUnit]:
        """What pairs the arms again: every trial begun in some arm, run where it has no valid record."""
        depth = {task: self.started(task) for task in self.task_ids}
        most = max(depth.values(), default=0)
        return self.missing([(t, trial) for trial in range(most) for t in self.task_ids if trial < depth[t]])

    def all_units(self, trials: int) -> list[ArmUnit]:
        """Every unit of `trials` trials of every task still without a valid record."""
        return self.missing([(task, trial) for trial in range(trials) for task in self.task_ids])

    def next_trials(self, tasks: Iterable[int]) -> list[ArmUnit]:
        """One more trial, in every arm, of each task (by index), in the order given."""
        chosen = [(self.task_ids[index], self.started(self.task_ids[index])) for index in tasks]
        return [self.unit(arm, task, trial) for task, trial in chosen for arm in range(self.arms)]

    def costs(self) -> list[tuple[float, int]]:
        """Per arm, what its records cost (priced models only) and how many records it has."""
        return [(sum(e.cost for e in ended), len(ended)) for ended in map(self.arm_ended, range(self.arms))]

    def counts(self, order: Sequence[int]) -> list[TaskCounts]:
        """Per arm in `order`, per task, its valid trials, successes and missing trials (ended by an
        infrastructure error)."""
        counts = []
        for arm in order:
            valid, successes, missing = [], [], []
            for task in self.task_ids:
                ended = list(self._ended[arm].get(task, {}).values())
                valid.append(sum(not e.excluded for e in ended))
                successes.append(sum(e.success for e in ended if not e.excluded))
                missing.append(sum(e.excluded for e in ended))
            counts.append(TaskCounts.from_counts(valid, successes, missing))
        return counts


def record_cost(record: SimulationRecord) -> float:
    """What a simulation's priced model calls cost to run (unpriced ones count nothing, nor do answers from
    the model cache)."""
    return sum(usage.spent or 0.0 for usage in record.usage.values())
