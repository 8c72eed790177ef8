"""Everything a run report counts, folded one record at a time: per-task outcomes, how simulations ended,
reference actions, reward-basis checks, usage and cost, retrieval, the judges' agreement and the run's
totals. A report streams its records through one `RunTally` and never holds them."""

from __future__ import annotations

from tau2.metrics._cost import CostTally
from tau2.metrics._judge_agreement import JudgeTally
from tau2.metrics.actions import ActionTally
from tau2.metrics.checks import CheckTally
from tau2.metrics.outcomes import OutcomeTally, TaskTally
from tau2.metrics.retrieval import RetrievalTally
from tau2.metrics.robustness import RobustnessTally
from tau2.metrics.usage import UsageTally
from tau2.runs import RecordHead


class RunTally:
    """Per-task and run-wide aggregates of the records added so far (the records themselves are not kept)."""

    def __init__(self) -> None:
        self.outcomes = OutcomeTally()
        self.actions = ActionTally()
        self.checks = CheckTally()
        self.usage = UsageTally()
        self.cost = CostTally()
        self.retrieval = RetrievalTally()
        self.judges = JudgeTally()
        self.robustness = RobustnessTally()
        self.simulations = self.excluded = self.successes = self.steps = self.tool_errors = 0
        self._durations: list[float] = []

    def add(self, record: RecordHead) -> TaskTally:
        """Fold one record into every aggregate; returns its task's tally."""
        task = self.outcomes.add(record)
        self.actions.add(record)
        self.checks.add(record)
        self.usage.add(record)
        self.cost.add(record)
        self.retrieval.add(record)
        self.judges.add(record)
        self.robustness.add(record)
        self.simulations += 1
        self._durations.append(record.duration_s)
        if record.excluded:
            self.excluded += 1
        else:
            self.successes += record.success
            self.steps += record.steps
            self.tool_errors += record.tool_errors
        return task

    @property
    def valid(self) -> int:
        """Records that did not end on an infrastructure error."""
        return self.simulations - self.excluded

    @property
    def mean_steps(self) -> float | None:
        """Mean steps over the valid records; None without any."""
        return self.steps / self.valid if self.valid else None

    @property
    def duration_s(self) -> float:
        """Simulation time summed over every record."""
        return sum(self._durations)  # as `sum` adds them (which Python 3.12 compensates)
