"""Collateral damage over a run: how often a simulation changed records its task's reference solution leaves
alone (the rate, per task then averaged over tasks like pass^1, with the same interval), which tools and
seats did it, and every simulation that did, or that left out a write the reference makes (tasks scored by
their database). Folded one record at a time from what the runner recorded; the reward is not involved."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from pydantic import BaseModel, ConfigDict

from tau2.metrics.bootstrap import NO_ESTIMATE, Bootstrap, Estimate, rate_estimate
from tau2.runs import RecordHead
from tau2.world import RecordWrite


class CollateralCall(BaseModel):
    """One tool of one seat that wrote collateral: in how many simulations, and how many records."""

    model_config = ConfigDict(frozen=True)

    seat: str
    tool: str
    simulations: int
    records: int


class CollateralSimulation(BaseModel):
    """A simulation with collateral damage or missing writes: what it wrote beside the reference (`extra`)
    and, for a task scored by its database, the reference's writes it left out or made otherwise."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    reward: float
    extra: list[RecordWrite]
    missing: list[RecordWrite] | None = None


class CollateralSummary(BaseModel):
    """A run's collateral damage over its valid simulations whose collateral was checked."""

    model_config = ConfigDict(frozen=True)

    checked: int
    """Valid simulations the runner compared with their task's reference (older records are not)."""
    unchecked: int
    """Valid simulations without that comparison (records made before runs recorded it, imports)."""
    damaged: int
    """Checked simulations that changed at least one record the reference leaves alone."""
    rate: Estimate
    """The share of checked simulations with collateral damage, per task then averaged over tasks, with its
    interval (as pass^1's)."""
    database_checked: int = 0
    """Checked simulations of tasks scored by their database, where missing writes are told too."""
    missing: int = 0
    """Of those, simulations that left out (or made otherwise) a write the reference makes."""
    calls: list[CollateralCall] = []
    """Per seat and tool, the collateral writes, most simulations first."""
    simulations: list[CollateralSimulation] = []
    """Every simulation with collateral damage or missing writes, task by task."""


class _TaskCollateral:
    """One task's share of a `CollateralTally`."""

    def __init__(self) -> None:
        self.checked = self.unchecked = self.damaged = self.database_checked = self.missing = 0
        self.listed: list[CollateralSimulation] = []
        self.simulations: Counter[tuple[str, str]] = Counter()
        self.records: Counter[tuple[str, str]] = Counter()

    def add(self, record: RecordHead) -> None:
        if record.collateral is None:
            self.unchecked += 1
            return
        self.checked += 1
        self.damaged += bool(record.collateral)
        if record.missing_writes is not None:
            self.database_checked += 1
            self.missing += bool(record.missing_writes)
        if record.collateral or record.missing_writes:
            self.listed.append(
                CollateralSimulation(
                    task_id=record.task_id,
                    trial=record.trial,
                    reward=record.reward,
                    extra=record.collateral,
                    missing=record.missing_writes,
                )
            )
        self.simulations.update({(c.seat.value, c.tool) for write in record.collateral for c in write.calls})
        for write in record.collateral:
            self.records.update({(call.seat.value, call.tool) for call in write.calls})


class CollateralTally:
    """`CollateralSummary` folded one record at a time, per task, so a comparison can sum the tasks it
    shares."""

    def __init__(self) -> None:
        self._tasks: dict[str, _TaskCollateral] = {}

    def add(self, record: RecordHead) -> None:
        """Count one record (infrastructure failures are not)."""
        if not record.excluded:
            self._tasks.setdefault(record.task_id, _TaskCollateral()).add(record)

    def summary(
        self, bootstrap: Bootstrap, task_ids: Collection[str] | None = None
    ) -> CollateralSummary | None:
        """The summary of the records added (of the tasks `task_ids` only, when given); None without any
        valid record."""
        tasks = [task for task_id, task in self._tasks.items() if task_ids is None or task_id in task_ids]
        if not tasks:
            return None
        simulations: Counter[tuple[str, str]] = Counter()
        records: Counter[tuple[str, str]] = Counter()
        for task in tasks:
            simulations.update(task.simulations)
            records.update(task.records)
        shares = [task.damaged / task.checked for task in tasks if task.checked]
        return CollateralSummary(
            checked=sum(task.checked for task in tasks),
            unchecked=sum(task.unchecked for task in tasks),
            damaged=sum(task.damaged for task in tasks),
            rate=rate_estimate(shares, bootstrap) if shares else NO_ESTIMATE,
            database_checked=sum(task.database_checked for task in tasks),
            missing=sum(task.missing for task in tasks),
            calls=[
                CollateralCall(seat=seat, tool=tool, simulations=count, records=records[seat, tool])
                for (seat, tool), count in simulations.most_common()
            ],
            simulations=[simulation for task in tasks for simulation in task.listed],
        )
