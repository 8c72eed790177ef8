"""Build report documents from run directories."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tau2.audit import RunAuditor
from tau2.errors import UserInputError
from tau2.metrics import (
    Bootstrap,
    CollateralSummary,
    CollateralTally,
    CostTally,
    OutcomeTally,
    Pair,
    PairBy,
    RunTally,
    TaskEffort,
    TaskTally,
    breakdowns,
    flip_sets,
    flip_summary,
    missing_summary,
    pair_key,
    pair_outcomes,
    paired_breakdowns,
    paired_curve,
    paired_task_effort,
    paired_task_terminations,
    pass_hat_k_curve,
    task_action_diffs,
)
from tau2.report.cost import paired_frontier
from tau2.report.factors import differing_factors, side_labels, title
from tau2.report.robustness import run_profile
from tau2.report.schema import ComparisonReport, Factor, RunRef, RunReport, SimulationRow, Totals
from tau2.runs import EffortHead, RecordFile, RecordHead, Run, RunManifest, fold_run, record_heads

DEFAULT_MAX_K: Final = 8
"""pass^k is shown for k = 1..8 unless asked for more (or the runs have fewer trials)."""


def read_report(path: Path, bootstrap: Bootstrap, max_k: int | None = None) -> tuple[Run, RunReport]:
    """The run directory at `path` and its report, built in the one pass that reads the run (each results
    line parsed once, no transcript built); pass^k as `build_report` shows it."""
    run, fold = fold_run(path, lambda manifest: _RunFold(manifest, bootstrap))
    return run, fold.report(run, max_k)


def build_report(run: Run, bootstrap: Bootstrap, max_k: int | None = None) -> RunReport:
    """Every metric of one run; pass^k for k up to `max_k` (default `DEFAULT_MAX_K`) or the run's trials,
    whichever is smaller. The records' heads are read once, one at a time, into per-task aggregates and one
    small row per simulation; none is kept."""
    fold = _RunFold(run.manifest, bootstrap)
    for head in record_heads(run.records):
        fold.add(head)
    return fold.report(run, max_k)


class _RunFold:
    """What a report folds a run's records into, one head at a time: per-task aggregates, the audit and one
    small row per simulation."""

    def __init__(self, manifest: RunManifest, bootstrap: Bootstrap) -> None:
        self.bootstrap = bootstrap
        self.tally, self.auditor = RunTally(), RunAuditor(manifest, bootstrap)
        self.collateral = CollateralTally()
        self.rows: list[SimulationRow] = []

    def add(self, head: RecordHead) -> None:
        """Fold one record's head in."""
        task = self.tally.add(head)
        self.auditor.add(head)
        self.collateral.add(head)
        self.rows.append(_row(head, task))

    def report(self, run: Run, max_k: int | None) -> RunReport:
        """The report of `run`, whose records were all folded in."""
        manifest, tally, bootstrap = run.manifest, self.tally, self.bootstrap
        outcomes = tally.outcomes.outcomes()
        shown_k = min(manifest.trials, max_k or DEFAULT_MAX_K)
        pass_hat_k = pass_hat_k_curve(outcomes, shown_k, bootstrap)
        perturbations = tally.robustness.summaries(manifest.config.perturbations)
        return RunReport(
            path=str(run.path),
            manifest=manifest,
            bootstrap=bootstrap,
            totals=Totals(
                expected=len(manifest.task_ids) * manifest.trials,
                simulations=tally.simulations,
                excluded=tally.excluded,
                valid=tally.valid,
                successes=tally.successes,
                tasks=len(outcomes),
                mean_steps=tally.mean_steps,
                tool_errors=tally.tool_errors,
                duration_s=tally.duration_s,
            ),
            pass_hat_k=pass_hat_k,
            flips=flip_summary(outcomes),
            breakdowns=breakdowns(outcomes, shown_k, bootstrap),
            actions=tally.actions.stats(),
            checks=tally.checks.stats(),
            usage=tally.usage.ledger(),
            cost=tally.cost.summary(tally.usage.ledger(), len(manifest.config.judges), bootstrap),
            terminations=tally.outcomes.termination_counts(),
            termination_outcomes=tally.outcomes.termination_outcomes(),
            tasks=outcomes,
            simulations=self.rows,
            warnings=run.warnings,
            missing=missing_summary(outcomes, shown_k),
            retrieval=tally.retrieval.summary(),
            audit=self.auditor.result(run.records),
            judges=tally.judges.result(),
            collateral=self.collateral.summary(bootstrap),
            robustness=run_profile(perturbations, pass_hat_k),
        )


def _row(record: RecordHead, task: TaskTally) -> SimulationRow:
    """The record's row; its task's texts are shared with the task's tally rather than copied per row."""
    usage = list(record.usage.values())
    return SimulationRow(
        task_id=task.task_id,
        trial=record.trial,
        seed=record.seed,
        intent=task.intent if record.intent == task.intent else record.intent,
        subtasks=task.faults if record.subtasks == task.faults else record.subtasks,
        persona=task.persona if record.persona == task.persona else record.persona,
        expects_transfer=record.expects_transfer,
        reward=record.reward,
        termination=record.termination,
        excluded=record.excluded,
        steps=record.steps,
        tool_errors=record.tool_errors,
        duration_s=record.duration_s,
        tokens=sum(u.prompt_tokens + u.completion_tokens for u in usage),
        cost=None if any(u.cost is None for u in usage) else sum(u.cost or 0.0 for u in usage),
    )


def auto_pair_by(a: Run, b: Run, factors: list[Factor]) -> PairBy:
    """Composition pairing when the runs differ by the personas their tasks carry, task pairing otherwise."""
    persona_differs = any(factor.name == "persona" for factor in factors)
    overridden = a.manifest.config.persona is not None and b.manifest.config.persona is not None
    return PairBy.COMPOSITION if persona_differs and not overridden else PairBy.TASK


def build_comparison(
    a: Run, b: Run, pair_by: PairBy | None, bootstrap: Bootstrap, max_k: int | None = None
) -> ComparisonReport:
    """Run B against run A on their shared tasks, pass^k up to `max_k` (default `DEFAULT_MAX_K`) or the
    fewer trials of the two; a `UserInputError` when they share no task. Each run is read once, one record
    at a time, into per-task aggregates."""
    side_a, side_b = _RunSide.read(a), _RunSide.read(b)
    factors = differing_factors(a, b, (side_a.personas(), side_b.personas()))
    pairing = pair_by or auto_pair_by(a, b, factors)
    outcomes_a, outcomes_b = side_a.outcomes.outcomes(), side_b.outcomes.outcomes()
    keys_a = {pair_key(o.task_id, pairing) for o in outcomes_a}
    keys_b = {pair_key(o.task_id, pairing) for o in outcomes_b}
    if not keys_a & keys_b:  # said first: how a run's own tasks would pair is moot then
        raise UserInputError(f"{a.path} and {b.path} share no tasks (pairing by {pairing.value})")
    pairs = pair_outcomes(outcomes_a, outcomes_b, pairing)
    efforts = [(side_a.effort(p.a.task_id), side_b.effort(p.b.task_id)) for p in pairs]
    shown_k = min(a.manifest.trials, b.manifest.trials, max_k or DEFAULT_MAX_K)
    curve = paired_curve(pairs, shown_k, bootstrap)
    costs = (side_a.cost, side_b.cost)
    names = side_labels(factors, a.manifest.run_id, b.manifest.run_id)
    return ComparisonReport(
        title=title(factors),
        factors=factors,
        pair_by=pairing,
        a=_ref(a),
        b=_ref(b),
        bootstrap=bootstrap,
        shared=len(pairs),
        only_a=len(keys_a - keys_b),
        only_b=len(keys_b - keys_a),
        pass_hat_k=curve,
        flips=flip_sets(pairs),
        breakdowns=paired_breakdowns(pairs, shown_k, bootstrap),
        effort=paired_task_effort(efforts, bootstrap),
        terminations=paired_task_terminations(efforts, bootstrap),
        actions=task_action_diffs(efforts, bootstrap),
        warnings=[*a.warnings, *b.warnings],
        missing={
            "a": missing_summary([p.a for p in pairs], shown_k),
            "b": missing_summary([p.b for p in pairs], shown_k),
        },
        frontier=paired_frontier(
            curve.get("1"), pairs, costs, names, (a.manifest.run_id, b.manifest.run_id), bootstrap
        ),
        collateral=_collateral(side_a, side_b, pairs, bootstrap),
    )


class _RunSide:
    """One side of a comparison read in one pass: per-task outcomes and cost, and per task the effort of its
    valid records."""

    def __init__(self) -> None:
        self.outcomes = OutcomeTally()
        self.cost = CostTally()
        self.efforts: dict[str, TaskEffort] = {}
        self.collateral = CollateralTally()

    @classmethod
    def read(cls, run: Run) -> _RunSide:
        """The side of `run`, its records read one at a time as `EffortHead`s (no transcript built)."""
        side = cls()
        records = run.records
        for record in records.heads(EffortHead) if isinstance(records, RecordFile) else records:
            side.outcomes.add(record)
            side.cost.add(record)
            side.collateral.add(record)
            if not record.excluded:
                side.effort(record.task_id).add(record)
        return side

    def effort(self, task_id: str) -> TaskEffort:
        """The task's effort (empty when it has no valid record)."""
        effort = self.efforts.get(task_id)
        if effort is None:
            effort = self.efforts[task_id] = TaskEffort()
        return effort

    def personas(self) -> set[str]:
        """The personas the run's tasks carry."""
        return {task.persona for task in self.outcomes.tasks.values() if task.persona is not None}


def _collateral(
    a: _RunSide, b: _RunSide, pairs: list[Pair], bootstrap: Bootstrap
) -> dict[str, CollateralSummary]:
    """Each side's collateral damage over the paired tasks (sides without a valid record left out)."""
    summaries = {
        "a": a.collateral.summary(bootstrap, {pair.a.task_id for pair in pairs}),
        "b": b.collateral.summary(bootstrap, {pair.b.task_id for pair in pairs}),
    }
    return {side: summary for side, summary in summaries.items() if summary is not None}


def _ref(run: Run) -> RunRef:
    manifest = run.manifest
    return RunRef(
        run_id=manifest.run_id,
        path=str(run.path),
        mode=manifest.mode_label(),
        agent=manifest.agent.label(),
        user=None if manifest.user is None else manifest.user.label(),
        persona_override=manifest.config.persona,
        trials=manifest.trials,
    )
