"""The recorder: what every executor hands its results to, in the driver (the process that started the
runs), whichever executor it is: the single writer of every run's results store, the live tally and the
progress hooks."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.llm import Usage, UsageCallback
from tau2.runner._progress import Outcome, RunProgress, Tally
from tau2.runner._summary import RunTotals
from tau2.runs import RecordWriter, SimulationRecord, signals_held


class Recorder:
    """What an executor reports to: each simulation that starts, each record the moment its simulation
    ends (appended to its run's store by that store's one writer, counted, then dropped), each simulation
    lost without a record, and model-call usage. Runs are numbered as the executor's runs are (arm 0, 1, …)
    and share one tally."""

    def __init__(
        self,
        writers: Sequence[RecordWriter],
        tally: Tally,
        progress: RunProgress,
        totals: Sequence[RunTotals] | None = None,
    ) -> None:
        self._writers = writers
        self._tally = tally
        self._progress = progress
        self.totals = list(totals) if totals is not None else [RunTotals(tally.total) for _ in writers]
        """Per run, what its summary shows, counted from every record as it is stored."""

    def unit_started(self) -> None:
        """A simulation began."""
        self._tally.start()
        self._progress.update(self._tally)

    def unit_abandoned(self) -> None:
        """A simulation stopped without a record (its worker died); it goes back to the queue."""
        self._tally.abandon()
        self._progress.update(self._tally)

    def unit_finished(self, arm: int, record: SimulationRecord) -> None:
        """A simulation of run `arm` ended with `record`: append it, count it; nothing here keeps it. A
        signal that lands meanwhile is raised once it is both queued and counted, so the summary matches
        the store."""
        with signals_held():
            stored = self._writers[arm].write(record)
            self._tally.finish(record)
            self.totals[arm].add(Outcome.of(stored))
        self._progress.update(self._tally)

    async def room(self) -> None:
        """Wait while a writer has many records still to write: an executor whose simulations may end
        without ever suspending (offline actors) awaits this after each, so the records it produces
        never pile up in memory ahead of the disk."""
        for writer in self._writers:
            await writer.room()

    def follow_calls(self) -> UsageCallback:
        """Count tokens and cost per model call from now on; returns the callback to give the calls
        (`tau2.llm.call_settings(on_usage=…)`)."""
        self._tally.live = True
        return self._model_called

    def _model_called(self, label: str, usage: Usage) -> None:
        """A model call succeeded: add its tokens and cost (a few additions; nothing renders here)."""
        self._tally.call(
            usage.prompt_tokens + usage.completion_tokens, usage.spent, usage.cached_calls, usage.cached_cost
        )

    def calls_elsewhere(self, tokens: int, cost: float, unpriced: int, cached: int, saved: float) -> None:
        """Usage summed by a worker process since its last report (`cost` what was spent)."""
        tally = self._tally
        tally.tokens += tokens
        tally.cost += cost
        tally.unpriced += unpriced
        tally.cached += cached
        tally.saved += saved
