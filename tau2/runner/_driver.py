"""The driver side of a run, whichever executor simulates it: the single writer of the results store, the
live tally and the progress hooks, and the one interface every executor implements."""

from __future__ import annotations

from typing import Protocol

from tau2.llm import Usage, UsageCallback
from tau2.runner._prepare import PreparedRun
from tau2.runner._progress import Outcome, RunProgress, Tally
from tau2.runner._summary import RunTotals
from tau2.runs import RecordWriter, SimulationRecord, signals_held


class Driver:
    """What an executor reports to: each simulation that starts, each record the moment its simulation
    ends (appended by the one writer, counted, then dropped), each simulation lost without a record, and
    model-call usage."""

    def __init__(
        self, writer: RecordWriter, tally: Tally, progress: RunProgress, totals: RunTotals | None = None
    ) -> None:
        self._writer = writer
        self._tally = tally
        self._progress = progress
        self.totals = totals or RunTotals(tally.total)
        """What the run's summary shows, counted from every record as it is stored."""

    def unit_started(self) -> None:
        """A simulation began."""
        self._tally.start()
        self._progress.update(self._tally)

    def unit_abandoned(self) -> None:
        """A simulation stopped without a record (its worker died); it goes back to the queue."""
        self._tally.abandon()
        self._progress.update(self._tally)

    def unit_finished(self, record: SimulationRecord) -> None:
        """A simulation ended with `record`: append it, count it; nothing here keeps it. A signal that
        lands meanwhile is raised once it is both queued and counted, so the summary matches the store."""
        with signals_held():
            stored = self._writer.write(record)
            self._tally.finish(record)
            self.totals.add(Outcome.of(stored))
        self._progress.update(self._tally)

    async def room(self) -> None:
        """Wait while the writer has many records still to write: an executor whose simulations may end
        without ever suspending (offline actors) awaits this after each, so the records it produces
        never pile up in memory ahead of the disk."""
        await self._writer.room()

    def follow_calls(self) -> UsageCallback:
        """Count tokens and cost per model call from now on; returns the callback to give the calls
        (`tau2.llm.call_settings(on_usage=…)`)."""
        self._tally.live = True
        return self._model_called

    def _model_called(self, label: str, usage: Usage) -> None:
        """A model call succeeded: add its tokens and cost (a few additions; nothing renders here)."""
        self._tally.call(usage.prompt_tokens + usage.completion_tokens, usage.cost)

    def calls_elsewhere(self, tokens: int, cost: float, unpriced: int) -> None:
        """Usage summed by a worker process since its last report."""
        tally = self._tally
        tally.tokens += tokens
        tally.cost += cost
        tally.unpriced += unpriced


class Executor(Protocol):
    """Simulates a prepared run's pending units, handing every record to the driver as it ends. Three
    implementations, one per `ExecutorConfig.kind`: one event loop in this process, worker processes, Ray
    actors; each reads its settings (concurrency, rate limits, workers) from `prepared.config`."""

    async def __call__(self, prepared: PreparedRun, driver: Driver) -> None: ...
