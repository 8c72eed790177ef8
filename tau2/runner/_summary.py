"""The few lines `tau2 run` prints when it ends: what ran, pass^1, usage, and where the results are; counted
one record at a time as the run goes, so no finished record is kept for them."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tau2.runner._progress import Outcome, Tally
from tau2.runs import RESULTS_FILE, RecordFile, RunManifest, SimulationRecord, index_run

_FIGURES = re.compile(r"\d+(\.\d+)?")
"""Numbers in a failure's detail (attempts, seconds), which differ between otherwise equal failures."""


@dataclass
class _Failures:
    """Infrastructure errors whose details differ only in their figures."""

    count: int
    first: int
    """The store position of the first of them."""
    example: str
    """The detail of that first one."""


class RunTotals:
    """What the summary shows of a run's effective records (the last of each unit, in the store's order),
    counted one `Outcome` at a time: counts, pass^1, tokens and cost as the records hold them, and the
    infrastructure errors grouped by detail."""

    def __init__(self, total: int) -> None:
        self.tally = Tally(total)
        """Counts, pass^1, and tokens and cost summed over the records."""
        self.records = 0
        """Effective records counted."""
        self._failures: dict[str, _Failures] = {}
        self._next = 0
        self._reserved: dict[tuple[str, int], int] = {}

    @classmethod
    def resumed(cls, total: int, stored: Iterable[Outcome]) -> RunTotals:
        """The totals a resumed run starts from: the stored effective outcomes (in store order) it keeps;
        the infrastructure errors among them run again, and the record that replaces one takes its place."""
        totals = cls(total)
        for outcome in stored:
            if outcome.excluded:
                totals._reserved[outcome.task_id, outcome.trial] = totals._next
                totals._next += 1
            else:
                totals.add(outcome)
        return totals

    def add(self, outcome: Outcome) -> None:
        """Count the effective record of one more unit."""
        position = self._reserved.pop((outcome.task_id, outcome.trial), None)
        if position is None:
            position, self._next = self._next, self._next + 1
        self.records += 1
        self.tally.add(outcome)
        if not outcome.excluded:
            return
        key = _FIGURES.sub("N", outcome.detail or "")
        found = self._failures.get(key)
        example = outcome.detail or "no detail"
        if found is None:
            self._failures[key] = _Failures(1, position, example)
            return
        found.count += 1
        if position < found.first:
            found.first, found.example = position, example

    def most_common_failure(self) -> str | None:
        """`the most common (K of N): <detail>` over the infrastructure errors, counting details that
        differ only in their figures (attempts, seconds) as one; None when there were none."""
        if not self._failures:
            return None
        common = max(self._failures.values(), key=lambda failures: (failures.count, -failures.first))
        return f"the most common ({common.count} of {self.tally.infra_errors}): {common.example}"


def run_summary(manifest: RunManifest, totals: RunTotals, run_dir: Path) -> str:
    """A short summary of a run from the totals of its effective records."""
    tally = totals.tally
    user = f", user {manifest.user.label()}" if manifest.user is not None else ""
    pass_1 = "–" if tally.pass_1 is None else f"{tally.pass_1:.3f}"
    lines = [
        f"run {manifest.run_id}: {manifest.domain}, {manifest.mode_label()}, "
        f"agent {manifest.agent.label()}{user}, {len(manifest.task_ids)} tasks × {manifest.trials} trials",
        f"simulations: {tally.done}/{tally.total} judged, {tally.infra_errors} infrastructure errors, "
        f"{tally.total - tally.done - tally.infra_errors} not run",
        f"pass^1: {pass_1} · tokens {tally.tokens} · cost {tally.cost_text()}",
    ]
    failure = totals.most_common_failure()
    if failure is not None:
        lines.append(f"infrastructure errors: {failure}")
    if tally.done < tally.total:
        lines.append(f"incomplete: `tau2 run --resume --out {run_dir}` runs the missing simulations")
    lines.append(f"results: {run_dir / RESULTS_FILE} · report: `tau2 report {run_dir}`")
    return "\n".join(lines)


def nothing_judged(totals: RunTotals) -> str | None:
    """When simulations ran but none was judged (all infrastructure errors): one line saying how many,
    with the most common failure; else None."""
    failed = totals.tally.infra_errors
    if not failed or failed < totals.records:
        return None
    return f"no simulation was judged: {failed} infrastructure errors; {totals.most_common_failure()}"


def latest_outcomes(records: Iterable[SimulationRecord]) -> list[Outcome]:
    """The outcome of the last record of each (task, trial), in the order `latest_records` gives the
    records, read from a stream of records with one small entry kept per unit."""
    latest: dict[tuple[str, int], Outcome] = {}
    for record in records:
        outcome = Outcome.of(record)
        latest[record.task_id, record.trial] = outcome._replace(task_id=sys.intern(outcome.task_id))
    return list(latest.values())


def stored_totals(manifest: RunManifest, run_dir: Path) -> RunTotals:
    """The totals of the run stored in `run_dir`, read one record at a time."""
    totals = RunTotals(len(manifest.task_ids) * manifest.trials)
    results = run_dir / RESULTS_FILE
    for outcome in latest_outcomes(RecordFile(results, index_run(manifest, results).lines)):
        totals.add(outcome)
    return totals
