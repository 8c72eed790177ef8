"""Build report documents from run directories."""

from __future__ import annotations

from statistics import fmean
from typing import Final

from tau2.audit import audit_run
from tau2.errors import UserInputError
from tau2.metrics import (
    Bootstrap,
    PairBy,
    RecordPair,
    action_diffs,
    action_stats,
    breakdowns,
    check_stats,
    flip_sets,
    flip_summary,
    judge_agreement,
    pair_key,
    pair_outcomes,
    paired_breakdowns,
    paired_curve,
    paired_effort,
    paired_terminations,
    pass_hat_k_curve,
    retrieval_summary,
    seat_usage,
    task_outcomes,
    termination_counts,
    termination_outcomes,
)
from tau2.metrics.paired import Pair
from tau2.report.factors import differing_factors, title
from tau2.report.schema import ComparisonReport, Factor, RunRef, RunReport, SimulationRow, Totals
from tau2.runs import Run, SimulationRecord

DEFAULT_MAX_K: Final = 8
"""pass^k is shown for k = 1..8 unless asked for more (or the runs have fewer trials)."""


def build_report(run: Run, bootstrap: Bootstrap, max_k: int | None = None) -> RunReport:
    """Every metric of one run; pass^k for k up to `max_k` (default `DEFAULT_MAX_K`) or the run's trials,
    whichever is smaller."""
    manifest, records = run.manifest, run.records
    outcomes = task_outcomes(records)
    shown_k = min(manifest.trials, max_k or DEFAULT_MAX_K)
    valid = [record for record in records if not record.excluded]
    return RunReport(
        path=str(run.path),
        manifest=manifest,
        bootstrap=bootstrap,
        totals=Totals(
            expected=len(manifest.task_ids) * manifest.trials,
            simulations=len(records),
            excluded=len(records) - len(valid),
            valid=len(valid),
            successes=sum(record.success for record in valid),
            tasks=len(outcomes),
            mean_steps=fmean(record.steps for record in valid) if valid else None,
            tool_errors=sum(record.tool_errors for record in valid),
            duration_s=sum(record.duration_s for record in records),
        ),
        pass_hat_k=pass_hat_k_curve(outcomes, shown_k, bootstrap),
        flips=flip_summary(outcomes),
        breakdowns=breakdowns(outcomes, shown_k, bootstrap),
        actions=action_stats(records),
        checks=check_stats(records),
        usage=seat_usage(records),
        terminations=termination_counts(records),
        termination_outcomes=termination_outcomes(records),
        tasks=outcomes,
        simulations=[_row(record) for record in records],
        warnings=run.warnings,
        retrieval=retrieval_summary(records),
        audit=audit_run(run, bootstrap),
        judges=judge_agreement(records),
    )


def _row(record: SimulationRecord) -> SimulationRow:
    usage = list(record.usage.values())
    return SimulationRow(
        task_id=record.task_id,
        trial=record.trial,
        seed=record.seed,
        intent=record.intent,
        subtasks=record.subtasks,
        persona=record.persona,
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
    fewer trials of the two; a `UserInputError` when they share no task."""
    factors = differing_factors(a, b)
    pairing = pair_by or auto_pair_by(a, b, factors)
    outcomes_a, outcomes_b = task_outcomes(a.records), task_outcomes(b.records)
    keys_a = {pair_key(o.task_id, pairing) for o in outcomes_a}
    keys_b = {pair_key(o.task_id, pairing) for o in outcomes_b}
    if not keys_a & keys_b:  # said first: how a run's own tasks would pair is moot then
        raise UserInputError(f"{a.path} and {b.path} share no tasks (pairing by {pairing.value})")
    pairs = pair_outcomes(outcomes_a, outcomes_b, pairing)
    record_pairs = _record_pairs(a, b, pairs)
    shown_k = min(a.manifest.trials, b.manifest.trials, max_k or DEFAULT_MAX_K)
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
        pass_hat_k=paired_curve(pairs, shown_k, bootstrap),
        flips=flip_sets(pairs),
        breakdowns=paired_breakdowns(pairs, shown_k, bootstrap),
        effort=paired_effort(record_pairs, bootstrap),
        terminations=paired_terminations(record_pairs, bootstrap),
        actions=action_diffs(record_pairs, bootstrap),
        warnings=[*a.warnings, *b.warnings],
    )


def _record_pairs(a: Run, b: Run, pairs: list[Pair]) -> list[RecordPair]:
    """The valid records of each paired task, A's and B's."""
    by_task_a, by_task_b = _valid_by_task(a), _valid_by_task(b)
    return [(by_task_a.get(p.a.task_id, []), by_task_b.get(p.b.task_id, [])) for p in pairs]


def _valid_by_task(run: Run) -> dict[str, list[SimulationRecord]]:
    grouped: dict[str, list[SimulationRecord]] = {}
    for record in run.records:
        if not record.excluded:
            grouped.setdefault(record.task_id, []).append(record)
    return grouped


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
