"""The report of an experiment (`tau2 experiment report`): every arm's pass^k, and every arm against the
baseline on the paired (task, trial) units: Δpass^1 with its interval, the McNemar test, the minimum
detectable difference and the verdict, where the difference comes from, the units that flip, and what
each arm costs per seat. The statistics are `tau2.metrics`'; this module pairs the arms' records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, computed_field

from tau2.errors import UserInputError
from tau2.metrics import (
    ActionDiff,
    ArmComparison,
    Bootstrap,
    Estimate,
    MissingSummary,
    PairBy,
    PairedEstimate,
    PairedMean,
    RecordPair,
    SeatUsage,
    TaskCounts,
    TaskOutcome,
    action_diffs,
    compare_arms,
    mcnemar,
    missing_summary,
    pair_outcomes,
    paired_curve,
    paired_effort,
    pass_hat_k_curve,
    seat_usage,
    task_outcomes,
)
from tau2.metrics.breakdown import GROUPINGS, MISSING
from tau2.metrics.effort import MEASURES, effort_row
from tau2.metrics.paired import Pair, paired_breakdown
from tau2.report.ablation import Ablation, ablation
from tau2.report.build import DEFAULT_MAX_K
from tau2.runs import (
    EXPERIMENT_FILE,
    ExperimentManifest,
    Run,
    SimulationRecord,
    arm_run_dir,
    load_experiment,
    load_run,
)

SCHEMA_VERSION: Final = 1

Unit = tuple[str, int]
"""A (task id, trial): the unit arms are paired on."""

SOURCES: Final = ("intent", "subtasks", "persona", "action", "seat")
"""The groupings a difference is traced to: the tasks' intent, number of subtasks and persona, the reference
actions they expect, and the seats those actions belong to."""


class _Document(BaseModel):
    model_config = ConfigDict(frozen=True)


class SeatMean(_Document):
    """One measure's mean per valid simulation of an arm (`turns` belong to the whole episode, `both`)."""

    seat: str
    measure: str
    mean: float | None
    """None when no simulation could measure it (an unpriced seat's cost)."""


class ArmSummary(_Document):
    """One arm: its run, configuration, pass^k with intervals, missing trials and what it cost."""

    name: str
    path: str
    run_id: str
    baseline: bool
    overrides: dict[str, Any]
    mode: str
    agent: str
    user: str | None
    persona_override: str | None
    tasks: int
    simulations: int
    valid: int
    successes: int
    pass_hat_k: dict[str, Estimate]
    """k (as a string) → pass^k over the arm's tasks with at least k valid trials."""
    missing: MissingSummary
    usage: list[SeatUsage]
    effort: list[SeatMean]


class SourceGroup(_Document):
    """Δpass^1 within one group of paired tasks, and its share of the whole difference."""

    key: str
    tasks: int
    baseline: float | None
    arm: float | None
    delta: float | None
    ci: tuple[float, float] | None
    contribution: float | None
    """delta × this group's tasks / all paired tasks: for groupings where each task is in one group, the
    contributions add up to `delta_pass_hat_1`."""


class Flip(_Document):
    """A (task, trial) that passed in one arm and failed in the other."""

    task_id: str
    trial: int
    seed: int
    to: Literal["pass", "fail"]
    """`pass`: failed in the baseline, passed in the arm; `fail`: the reverse."""


class ExperimentComparison(ArmComparison):
    """One arm against the baseline: the figures of `compare_arms`, whether the arms can differ at all, and
    where the difference comes from."""

    comparable: bool
    reason: str | None
    """Why the comparison cannot show a difference (its arms differ only in settings nobody reads)."""
    settings: list[str]
    """The settings the two arms' configurations differ in."""
    seed_mismatches: int
    """Units whose seed differs between the arms (0 when the arms are paired as they should be)."""
    pass_hat_k: dict[str, PairedEstimate]
    sources: dict[str, list[SourceGroup]]
    actions: list[ActionDiff]
    effort: list[PairedMean]
    flips: list[Flip]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> str:
        """The verdict sentence, or why the arms cannot differ."""
        if not self.comparable and self.reason is not None:
            return f"{self.arm} against {self.baseline}: {self.reason}"
        return super().verdict


class ExperimentReport(_Document):
    """Everything `tau2 experiment report` shows."""

    schema_version: Literal[1] = SCHEMA_VERSION
    kind: Literal["experiment"] = "experiment"
    name: str
    path: str
    baseline: str
    bootstrap: Bootstrap
    arms: list[ArmSummary]
    comparisons: list[ExperimentComparison]
    warnings: list[str]


def load_arms(directory: Path) -> tuple[ExperimentManifest, dict[str, Run]]:
    """The experiment file and every arm's run, by name in the experiment's order; an arm without a run
    directory is one `UserInputError` line."""
    manifest = load_experiment(directory)
    runs: dict[str, Run] = {}
    for arm in manifest.config.arms:
        path = arm_run_dir(directory, arm.name)
        if not path.is_dir():
            raise UserInputError(f"{path}: arm {arm.name!r} has no run directory yet (tau2 experiment run)")
        runs[arm.name] = load_run(path)
    return manifest, runs


def refuse_own_files(directory: Path, page: Path) -> None:
    """A one-line `UserInputError` when the page would be written over the experiment's own file (or any
    other file of its directory but an earlier page): a report never overwrites what it reports on. The
    arms' files are guarded by `write_page`, like any run's."""
    if page.resolve().parent != directory.resolve():
        return
    if page.name == EXPERIMENT_FILE or (page.exists() and page.suffix != ".html"):
        raise UserInputError(
            f"{page}: is a file of the experiment in {directory}; choose another --html path"
        )


def build_experiment_report(
    directory: Path, manifest: ExperimentManifest, runs: dict[str, Run], bootstrap: Bootstrap
) -> ExperimentReport:
    """The report of the experiment in `directory` from its manifest and its arms' runs."""
    config = manifest.config
    base = runs[config.baseline]
    warnings = [f"{name}: {warning}" for name, run in runs.items() for warning in run.warnings]
    comparisons = []
    for name, run in runs.items():
        if name == config.baseline:
            continue
        comparison = _comparison(name, config.baseline, run, base, bootstrap)
        if comparison.seed_mismatches:
            warnings.append(
                f"{name}: {comparison.seed_mismatches:,} (task, trial) units have another seed than in "
                f"{config.baseline}: the arms are not paired on them"
            )
        comparisons.append(comparison)
    return ExperimentReport(
        name=config.name,
        path=str(directory),
        baseline=config.baseline,
        bootstrap=bootstrap,
        arms=[
            _arm(arm.name, runs[arm.name], arm.overrides, config.baseline, bootstrap) for arm in config.arms
        ],
        comparisons=comparisons,
        warnings=warnings,
    )


def _arm(name: str, run: Run, overrides: dict[str, Any], baseline: str, bootstrap: Bootstrap) -> ArmSummary:
    m, records = run.manifest, run.records
    outcomes = task_outcomes(records)
    shown_k = min(max((o.trials + o.excluded for o in outcomes), default=1), DEFAULT_MAX_K)
    valid = [record for record in records if not record.excluded]
    return ArmSummary(
        name=name,
        path=str(run.path),
        run_id=m.run_id,
        baseline=name == baseline,
        overrides=overrides,
        mode=m.mode_label(),
        agent=m.agent.label(),
        user=None if m.user is None else m.user.label(),
        persona_override=m.config.persona,
        tasks=len(outcomes),
        simulations=len(records),
        valid=len(valid),
        successes=sum(record.success for record in valid),
        pass_hat_k=pass_hat_k_curve(outcomes, shown_k, bootstrap),
        missing=missing_summary(outcomes, shown_k),
        usage=seat_usage(records),
        effort=_effort(valid),
    )


def _effort(records: Sequence[SimulationRecord]) -> list[SeatMean]:
    """Each effort measure's mean per simulation over `records` (NaN values, an unpriced cost, left out)."""
    values = np.array([effort_row(record) for record in records], dtype=np.float64).reshape(-1, len(MEASURES))
    means = []
    for column, (seat, measure) in enumerate(MEASURES):
        known = values[~np.isnan(values[:, column]), column]
        means.append(SeatMean(seat=seat, measure=measure, mean=float(known.mean()) if known.size else None))
    return means


def _comparison(name: str, baseline: str, arm: Run, base: Run, bootstrap: Bootstrap) -> ExperimentComparison:
    base_units, arm_units = _units(base.records), _units(arm.records)
    units = [*base_units, *(unit for unit in arm_units if unit not in base_units)]
    test = mcnemar((_outcome(base_units.get(unit)), _outcome(arm_units.get(unit))) for unit in units)
    pairs = pair_outcomes(task_outcomes(base.records), task_outcomes(arm.records), PairBy.TASK)
    counts_base, counts_arm = TaskCounts.of(p.a for p in pairs), TaskCounts.of(p.b for p in pairs)
    verdict = compare_arms(
        name, baseline, arm_counts=counts_arm, baseline_counts=counts_base, units=test, bootstrap=bootstrap
    )
    paired_units = [(base_units[u], arm_units[u]) for u in units if u in base_units and u in arm_units]
    record_pairs = _record_pairs(pairs, paired_units)
    shown_k = min(max((min(p.a.trials, p.b.trials) for p in pairs), default=0), DEFAULT_MAX_K) or 1
    settings: Ablation = ablation(base.manifest.config, arm.manifest.config)
    return ExperimentComparison(
        **verdict.model_dump(exclude={"detected", "verdict"}),
        comparable=settings.comparable,
        reason=settings.reason,
        settings=settings.settings,
        seed_mismatches=sum(a.seed != b.seed for a, b in paired_units),
        pass_hat_k=paired_curve(pairs, shown_k, bootstrap) if pairs else {},
        sources=_sources(pairs, [*base.records, *arm.records], bootstrap),
        actions=action_diffs(record_pairs, bootstrap),
        effort=paired_effort(record_pairs, bootstrap),
        flips=_flips(paired_units),
    )


def _units(records: Sequence[SimulationRecord]) -> dict[Unit, SimulationRecord]:
    return {(record.task_id, record.trial): record for record in records}


def _outcome(record: SimulationRecord | None) -> bool | None:
    """A unit's outcome; None when it is missing (never run, or an infrastructure error)."""
    return None if record is None or record.excluded else record.success


def _record_pairs(
    pairs: Sequence[Pair], units: Sequence[tuple[SimulationRecord, SimulationRecord]]
) -> list[RecordPair]:
    """Per paired task, the valid records of each arm."""
    by_task: dict[str, tuple[list[SimulationRecord], list[SimulationRecord]]] = {}
    for a, b in units:
        side_a, side_b = by_task.setdefault(a.task_id, ([], []))
        side_a.extend([a] if not a.excluded else [])
        side_b.extend([b] if not b.excluded else [])
    return [by_task.get(pair.key, ([], [])) for pair in pairs]


def _flips(units: Sequence[tuple[SimulationRecord, SimulationRecord]]) -> list[Flip]:
    return [
        Flip(task_id=a.task_id, trial=a.trial, seed=a.seed, to="pass" if b.success else "fail")
        for a, b in units
        if not a.excluded and not b.excluded and a.success != b.success
    ]


def _sources(
    pairs: Sequence[Pair], records: Sequence[SimulationRecord], bootstrap: Bootstrap
) -> dict[str, list[SourceGroup]]:
    """Δpass^1 by each grouping of `SOURCES`."""
    expected: dict[str, set[tuple[str, str]]] = {}
    for record in records:
        expected.setdefault(record.task_id, set()).update((a.side.value, a.name) for a in record.actions)

    def actions(outcome: TaskOutcome) -> list[str]:
        return sorted(f"{seat}: {name}" for seat, name in expected.get(outcome.task_id, ())) or [MISSING]

    def seats(outcome: TaskOutcome) -> list[str]:
        return sorted({seat for seat, _ in expected.get(outcome.task_id, ())}) or [MISSING]

    keys: dict[str, Callable[[TaskOutcome], list[str]]] = {
        **{name: GROUPINGS[name] for name in ("intent", "subtasks", "persona")},
        "action": actions,
        "seat": seats,
    }
    total = sum(1 for pair in pairs if pair.a.trials and pair.b.trials)
    return {
        name: [
            _source(group.key, group.pass_hat_k["1"], total)
            for group in paired_breakdown(pairs, keys[name], 1, bootstrap)
        ]
        for name in SOURCES
    }


def _source(key: str, e: PairedEstimate, total: int) -> SourceGroup:
    ci = None if e.ci_low is None or e.ci_high is None else (e.ci_low, e.ci_high)
    contribution = None if e.diff is None or not total else e.diff * e.tasks / total
    return SourceGroup(
        key=key, tasks=e.tasks, baseline=e.a, arm=e.b, delta=e.diff, ci=ci, contribution=contribution
    )
