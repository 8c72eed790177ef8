"""What a run's results cost, folded one record head at a time from the usage the records carry.

- A simulation's cost is every model call made for it: its seats' and its judges' (infrastructure failures
  included: they were paid for).
- Cost per simulation = the run's cost ÷ its recorded simulations, with a percentile interval from
  resampling the tasks (each resample's cost ÷ its simulations).
- Cost per success = the run's cost ÷ its successful simulations (reward 1): what one success cost, the
  failures' cost included. Without a success it is `undefined`, never zero or infinite.
- Per seat (agent, user) and for the judges, the same with their own cost; they add up to the run's.
- A model without a price makes every figure it enters `unpriced`, never zero.
- The judges' saving: the simulations whose judges were not asked (a deterministic part of the reward had
  already failed), the calls that saved (one per judge of the panel and simulation), and an estimate of
  the money: those simulations times the judges' mean cost over the simulations they were asked about.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from tau2.llm import UNPRICED
from tau2.metrics.bootstrap import Bootstrap, ratio_interval
from tau2.metrics.usage import JUDGE, SeatUsage
from tau2.runs import RecordHead

UNDEFINED: Final = "undefined"
"""A cost per item with no item to divide by, such as a cost per success without a success (said, rather
than zero or infinity)."""

Cost = float | Literal["unpriced"]
"""USD, or `unpriced` when a model without a price was called."""
CostPer = float | Literal["unpriced", "undefined"]
"""USD per item, `unpriced`, or `undefined` when there is no item (no success) to divide by."""


class SeatCost(BaseModel):
    """One seat's (or the judges') share of the run's cost, per simulation and per success."""

    model_config = ConfigDict(frozen=True)

    seat: str
    """`agent`, `user` or `judge`."""
    total: Cost
    cost_per_simulation: CostPer
    cost_per_success: CostPer


class JudgeSaving(BaseModel):
    """What not asking the judges about simulations a deterministic part had already failed saved."""

    model_config = ConfigDict(frozen=True)

    not_needed: int
    """Simulations whose judges were not asked."""
    calls_not_made: int
    """Judge calls not made: one per judge of the panel and simulation not asked about."""
    judged: int
    """Simulations the judges were asked about: the estimate's basis."""
    estimated_usd: CostPer
    """`not_needed` × the judges' mean cost per simulation asked about; `undefined` when none was asked,
    `unpriced` when a judge has no price."""


class CostSummary(BaseModel):
    """The run's cost per simulation and per success, for the whole run and per seat and judge."""

    model_config = ConfigDict(frozen=True)

    simulations: int
    """Recorded simulations (infrastructure failures included: they were paid for)."""
    successes: int
    total: Cost
    cost_per_simulation: CostPer
    cost_per_simulation_ci: tuple[float, float] | None
    """Its interval from resampling the tasks; None when unpriced or without simulations."""
    cost_per_success: CostPer
    seats: list[SeatCost]
    """Agent and user (when they appear in the records), then the judges (when asked)."""
    judge_saving: JudgeSaving | None = None
    """Runs with judges: what not asking them when a deterministic part had already failed saved."""


class CostPerSimulation(BaseModel):
    """Cost per simulation over some tasks, with its interval (None when unpriced or without tasks)."""

    model_config = ConfigDict(frozen=True)

    value: CostPer
    ci: tuple[float, float] | None
    tasks: int


class _TaskCost:
    """One task's simulations: their priced cost, how many, how many succeeded, how many were unpriced."""

    __slots__ = ("cost", "simulations", "successes", "unpriced")

    def __init__(self) -> None:
        self.cost = 0.0
        self.simulations = self.successes = self.unpriced = 0


class CostTally:
    """Per task, the cost, simulations and successes of the records added so far; and the simulations
    whose judges were not asked."""

    def __init__(self) -> None:
        self._tasks: dict[str, _TaskCost] = {}
        self.not_needed = 0

    def add(self, record: RecordHead) -> None:
        """Fold one record's cost (its seats' and judges') in."""
        task = self._tasks.get(record.task_id)
        if task is None:
            task = self._tasks[record.task_id] = _TaskCost()
        cost = record_cost(record)
        if cost is None:
            task.unpriced += 1
        else:
            task.cost += cost
        task.simulations += 1
        task.successes += not record.excluded and record.success
        self.not_needed += record.judge_skipped is not None

    def per_simulation(self, bootstrap: Bootstrap, tasks: Collection[str] | None = None) -> CostPerSimulation:
        """The cost per simulation over `tasks` (default: every task), with its interval over them."""
        chosen = [cost for task_id, cost in self._tasks.items() if tasks is None or task_id in tasks]
        simulations = sum(task.simulations for task in chosen)
        if not simulations:
            return CostPerSimulation(value=UNDEFINED, ci=None, tasks=0)
        if any(task.unpriced for task in chosen):
            return CostPerSimulation(value=UNPRICED, ci=None, tasks=len(chosen))
        costs = [task.cost for task in chosen]
        interval = ratio_interval(costs, [task.simulations for task in chosen], bootstrap)
        return CostPerSimulation(value=sum(costs) / simulations, ci=interval, tasks=len(chosen))

    def summary(self, ledger: Sequence[SeatUsage], judges: int, bootstrap: Bootstrap) -> CostSummary:
        """The run's cost summary; `ledger` is its usage per seat and judge (`seat_usage`), `judges` how
        many judges the run's panel has (0 without any)."""
        simulations = sum(task.simulations for task in self._tasks.values())
        successes = sum(task.successes for task in self._tasks.values())
        unpriced = any(task.unpriced for task in self._tasks.values())
        total: Cost = UNPRICED if unpriced else sum(task.cost for task in self._tasks.values())
        estimate = self.per_simulation(bootstrap)
        return CostSummary(
            simulations=simulations,
            successes=successes,
            total=total,
            cost_per_simulation=per(total, simulations),
            cost_per_simulation_ci=estimate.ci,
            cost_per_success=per(total, successes),
            seats=[
                SeatCost(
                    seat=str(line.seat),
                    total=_cost(line.cost),
                    cost_per_simulation=per(_cost(line.cost), simulations),
                    cost_per_success=per(_cost(line.cost), successes),
                )
                for line in ledger
            ],
            judge_saving=self._saving(ledger, judges) if judges or self.not_needed else None,
        )

    def _saving(self, ledger: Sequence[SeatUsage], judges: int) -> JudgeSaving:
        judge = next((line for line in ledger if line.seat == JUDGE), None)
        judged = 0 if judge is None else judge.simulations
        mean = per(UNPRICED if judge is None else _cost(judge.cost), judged)
        estimated = 0.0 if not self.not_needed else mean if isinstance(mean, str) else self.not_needed * mean
        return JudgeSaving(
            not_needed=self.not_needed,
            calls_not_made=self.not_needed * max(judges, 1),
            judged=judged,
            estimated_usd=estimated,
        )


def record_cost(record: RecordHead) -> float | None:
    """What one simulation's model calls cost, its seats' and its judges'; None when one was unpriced."""
    usages = [*record.usage.values(), *([] if record.judge_usage is None else [record.judge_usage])]
    costs = [usage.cost for usage in usages]
    return None if None in costs else sum(cost or 0.0 for cost in costs)


def per(total: Cost, count: int) -> CostPer:
    """`total` ÷ `count`: `undefined` when there is nothing to divide by, `unpriced` when the total is."""
    if not count:
        return UNDEFINED
    return total if isinstance(total, str) else total / count


def _cost(value: float | None) -> Cost:
    return UNPRICED if value is None else value
