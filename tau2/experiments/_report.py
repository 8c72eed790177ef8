"""The report of an experiment (`tau2 experiment report`): every arm's pass^k, and every arm against the
baseline on the paired (task, trial) units: what the arms differ in, Δpass^1 with its interval, the McNemar
test (Holm-corrected over the arms), the minimum detectable difference and the verdict, every experiment
statistic (`tau2.metrics.experiment_statistics`), where the difference comes from, the units that flip, what
each arm costs per seat, per simulation and per success, and the arms' cost–accuracy frontier. The
statistics are `tau2.metrics`' and `_verdict`'s; this module pairs the arms' records. Each arm is read
once, one record head at a time (`EffortHead`: no transcript is built), into per-task and per-unit
aggregates: memory grows with the (task, trial) units, never with the records."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.errors import UserInputError
from tau2.experiments._manifest import EXPERIMENT_FILE, ExperimentManifest, arm_run_dir, load_experiment
from tau2.experiments._verdict import ArmComparison, compare_arms
from tau2.metrics import (
    NO_ESTIMATE,
    ActionDiff,
    Bootstrap,
    CollateralSummary,
    CollateralTally,
    CostPerSimulation,
    CostSummary,
    CostTally,
    Estimate,
    FrontierPoint,
    MissingSummary,
    OutcomeTally,
    PairBy,
    PairedEstimate,
    PairedMean,
    PairedUnit,
    RobustnessTally,
    SeatUsage,
    StatisticValue,
    TaskCounts,
    TaskEffort,
    TaskOutcome,
    frontier_point,
    holm,
    mcnemar,
    mcnemar_p_value,
    missing_summary,
    pair_outcomes,
    paired_curve,
    paired_task_effort,
    pareto_frontier,
    pass_hat_k_curve,
    statistic_values,
    task_action_diffs,
)
from tau2.metrics.breakdown import GROUPINGS, MISSING
from tau2.metrics.effort import MEASURES, Measured, effort_row
from tau2.metrics.paired import Pair, paired_groups
from tau2.metrics.usage import UsageTally
from tau2.report.ablation import Ablation, ablation
from tau2.report.build import DEFAULT_MAX_K
from tau2.report.factors import differing_factors
from tau2.report.schema import Factor, RobustnessProfile
from tau2.runs import EffortHead, RecordFile, Run, load_run

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
    cost: CostSummary | None = None
    """Cost per simulation (with its interval over tasks) and per success, for the arm and per seat."""
    collateral: CollateralSummary | None = None
    """The arm's collateral damage: its simulations that changed records their task's reference leaves
    alone (None without a valid record)."""


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
    p_value: float
    """The exact McNemar test on the group's paired (task, trial) units."""
    p_holm: float
    """`p_value` Holm-corrected over the groups of this grouping (one family per grouping and arm)."""


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
    factors: list[Factor]
    """What the two arms differ in, as `tau2 compare` names it (study factors first, then other settings,
    unexplained content hashes and versions), with each arm's value (`a` the baseline's)."""
    seed_mismatches: int
    """Units whose seed differs between the arms (0 when the arms are paired as they should be)."""
    pass_hat_k: dict[str, PairedEstimate]
    sources: dict[str, list[SourceGroup]]
    actions: list[ActionDiff]
    effort: list[PairedMean]
    flips: list[Flip]
    statistics: list[StatisticValue]
    """Every registered, declared or installed experiment statistic on the comparison's paired units."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def differ_in(self) -> list[str]:
        """The names of what the arms differ in (`factors`), e.g. `["agent"]`."""
        return [factor.name for factor in self.factors]

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
    frontier: list[FrontierPoint] = []
    """Every arm on the cost–accuracy plane: pass^1 against the cost per simulation, each with its
    interval, the Pareto frontier marked."""
    robustness: list[RobustnessProfile] = []
    """Each perturbed arm against the unperturbed baseline: what each perturbation did, when the agent
    noticed, pass^k and Δpass^1 with its paired interval and McNemar p (empty without perturbed arms)."""


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
    """The report of the experiment in `directory` from its manifest and its arms' runs. Each arm's records
    are read once, one head at a time; the baseline's are folded for every comparison at once."""
    config = manifest.config
    baseline = config.baseline
    others = [name for name in runs if name != baseline]
    present = {name: _present_units(run) for name, run in runs.items()}
    efforts = {name: _PairedEfforts() for name in others}
    reads = {
        name: _ArmRead.of(
            run,
            [(present[other], efforts[other].baseline) for other in others]
            if name == baseline
            else [(present[baseline], efforts[name].arm)],
        )
        for name, run in runs.items()
    }
    comparisons = [
        _comparison(
            name,
            baseline,
            (runs[baseline], runs[name]),
            (reads[baseline], reads[name]),
            efforts[name],
            bootstrap,
        )
        for name in others
    ]
    corrected = holm([comparison.p_value for comparison in comparisons])
    comparisons = [
        comparison.model_copy(update={"p_holm": p, "family": len(comparisons)})
        for comparison, p in zip(comparisons, corrected, strict=True)
    ]
    warnings = [f"{name}: {warning}" for name, run in runs.items() for warning in run.warnings]
    warnings += [
        f"{c.arm}: {c.seed_mismatches:,} (task, trial) units have another seed than in {baseline}: the arms "
        "are not paired on them"
        for c in comparisons
        if c.seed_mismatches
    ]
    arms = [
        _arm(arm.name, runs[arm.name], reads[arm.name], arm.overrides, baseline, bootstrap)
        for arm in config.arms
    ]
    robustness, robustness_warning = _robustness(runs, baseline, arms, comparisons, reads)
    return ExperimentReport(
        name=config.name,
        path=str(directory),
        baseline=baseline,
        bootstrap=bootstrap,
        arms=arms,
        comparisons=comparisons,
        warnings=warnings + robustness_warning,
        frontier=pareto_frontier([_frontier_point(arm) for arm in arms]),
        robustness=robustness,
    )


def _robustness(
    runs: dict[str, Run],
    baseline: str,
    arms: Sequence[ArmSummary],
    comparisons: Sequence[ExperimentComparison],
    reads: dict[str, _ArmRead],
) -> tuple[list[RobustnessProfile], list[str]]:
    """The profile of every perturbed arm against the baseline, which must be unperturbed (else a warning
    says why there is none)."""
    perturbed = [name for name, run in runs.items() if run.manifest.config.perturbations]
    if not perturbed:
        return [], []
    if baseline in perturbed:
        return [], [f"{baseline}: the baseline is perturbed: the robustness profile needs an unperturbed one"]
    summaries = {arm.name: arm for arm in arms}
    return [
        RobustnessProfile(
            arm=c.arm,
            perturbations=reads[c.arm].robustness.summaries(runs[c.arm].manifest.config.perturbations),
            pass_hat_k=summaries[c.arm].pass_hat_k,
            against=baseline,
            delta_pass_hat_1=c.pass_hat_k.get("1"),
            p_value=c.p_value,
        )
        for c in comparisons
        if c.arm in perturbed
    ], []


class _UnitEnd(NamedTuple):
    """What an arm's report keeps of one (task, trial): its outcome (None when it is missing) and its seed."""

    outcome: bool | None
    seed: int


class _PairedEfforts:
    """Per task, the effort of the valid records of the units both arms of one comparison recorded."""

    def __init__(self) -> None:
        self.baseline: dict[str, TaskEffort] = {}
        self.arm: dict[str, TaskEffort] = {}

    def pairs(self, pairs: Sequence[Pair]) -> list[tuple[TaskEffort, TaskEffort]]:
        """Each paired task's effort in the baseline and in the arm (empty where it has none)."""
        return [(self.baseline.get(p.key, TaskEffort()), self.arm.get(p.key, TaskEffort())) for p in pairs]


Pairing = tuple[Collection[Unit], dict[str, TaskEffort]]
"""The units the other arm of a comparison recorded, and where this arm's effort on them is folded."""


class _ArmRead:
    """One arm's records folded one at a time: per-task outcomes, usage and cost, the effort means of its
    valid records, each unit's outcome and seed, the reference actions each task expects, and for each
    comparison it takes part in, per task the effort of its valid records on the units both arms have."""

    def __init__(self, pairings: Sequence[Pairing]) -> None:
        self.pairings = pairings
        self.outcomes = OutcomeTally()
        self.usage = UsageTally()
        self.cost = CostTally()
        self.collateral = CollateralTally()
        self.robustness = RobustnessTally()
        self.units: dict[Unit, _UnitEnd] = {}
        self.expected: dict[str, set[tuple[str, str]]] = {}
        self.sums = [0.0] * len(MEASURES)
        self.measured = [0] * len(MEASURES)
        self.simulations = self.valid = self.successes = 0

    @classmethod
    def of(cls, run: Run, pairings: Sequence[Pairing]) -> _ArmRead:
        """The fold of `run`'s records (read from disk as `EffortHead`s when the run is on disk)."""
        read = cls(pairings)
        records = run.records
        heads: Iterable[Measured] = records.heads(EffortHead) if isinstance(records, RecordFile) else records
        for record in heads:
            read.add(record)
        return read

    def add(self, record: Measured) -> None:
        """Fold one record in."""
        unit = (record.task_id, record.trial)
        self.outcomes.add(record)
        self.usage.add(record)
        self.cost.add(record)
        self.collateral.add(record)
        self.robustness.add(record)
        self.simulations += 1
        self.units[unit] = _UnitEnd(None if record.excluded else record.success, record.seed)
        self.expected.setdefault(record.task_id, set()).update((a.side.value, a.name) for a in record.actions)
        if record.excluded:
            return
        self.valid += 1
        self.successes += record.success
        row = effort_row(record)
        for column, value in enumerate(row):
            if value == value:  # not NaN: an unpriced cost is left out of its mean
                self.sums[column] += value
                self.measured[column] += 1
        for units, efforts in self.pairings:
            if unit in units:
                effort = efforts.get(record.task_id)
                if effort is None:
                    effort = efforts[record.task_id] = TaskEffort()
                effort.add_row(record, row)

    def effort(self) -> list[SeatMean]:
        """Each effort measure's mean per valid simulation (None where none could be measured)."""
        return [
            SeatMean(seat=seat, measure=measure, mean=total / count if count else None)
            for (seat, measure), total, count in zip(MEASURES, self.sums, self.measured, strict=True)
        ]


def _present_units(run: Run) -> set[Unit]:
    """The (task, trial) units a run recorded: from its index when read from disk (no record is read)."""
    records = run.records
    if isinstance(records, RecordFile):
        return {(line.task_id, line.trial) for line in records.lines}
    return {(record.task_id, record.trial) for record in records}


def _arm(
    name: str, run: Run, read: _ArmRead, overrides: dict[str, Any], baseline: str, bootstrap: Bootstrap
) -> ArmSummary:
    m = run.manifest
    outcomes = read.outcomes.outcomes()
    shown_k = min(max((o.trials + o.excluded for o in outcomes), default=1), DEFAULT_MAX_K)
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
        simulations=read.simulations,
        valid=read.valid,
        successes=read.successes,
        pass_hat_k=pass_hat_k_curve(outcomes, shown_k, bootstrap),
        missing=missing_summary(outcomes, shown_k),
        usage=read.usage.ledger(),
        effort=read.effort(),
        cost=read.cost.summary(read.usage.ledger(), len(m.config.judges), bootstrap),
        collateral=read.collateral.summary(bootstrap),
    )


def _frontier_point(arm: ArmSummary) -> FrontierPoint:
    """An arm on the cost–accuracy plane: its pass^1 and its cost per simulation, over its tasks."""
    cost = arm.cost
    assert cost is not None, "every arm's report has its cost"
    per_simulation = CostPerSimulation(
        value=cost.cost_per_simulation, ci=cost.cost_per_simulation_ci, tasks=arm.tasks
    )
    return frontier_point(arm.name, arm.run_id, arm.pass_hat_k.get("1", NO_ESTIMATE), per_simulation)


def _comparison(
    name: str,
    baseline: str,
    runs: tuple[Run, Run],
    reads: tuple[_ArmRead, _ArmRead],
    efforts: _PairedEfforts,
    bootstrap: Bootstrap,
) -> ExperimentComparison:
    (base_run, arm_run), (base, arm) = runs, reads
    units = [*base.units, *(unit for unit in arm.units if unit not in base.units)]
    test = mcnemar((_outcome(base.units.get(unit)), _outcome(arm.units.get(unit))) for unit in units)
    pairs = pair_outcomes(base.outcomes.outcomes(), arm.outcomes.outcomes(), PairBy.TASK)
    counts_base, counts_arm = TaskCounts.of(p.a for p in pairs), TaskCounts.of(p.b for p in pairs)
    verdict = compare_arms(
        name, baseline, arm_counts=counts_arm, baseline_counts=counts_base, units=test, bootstrap=bootstrap
    )
    paired_units = [(unit, base.units[unit], arm.units[unit]) for unit in base.units if unit in arm.units]
    flips = _flips(paired_units)
    effort_pairs = efforts.pairs(pairs)
    shown_k = min(max((min(p.a.trials, p.b.trials) for p in pairs), default=0), DEFAULT_MAX_K) or 1
    settings: Ablation = ablation(base_run.manifest.config, arm_run.manifest.config)
    expected = {
        task: base.expected.get(task, set()) | arm.expected.get(task, set())
        for task in (*base.expected, *arm.expected)
    }
    return ExperimentComparison(
        **verdict.model_dump(exclude={"detected", "verdict"}),
        comparable=settings.comparable,
        reason=settings.reason,
        settings=settings.settings,
        factors=differing_factors(base_run, arm_run, (set(), set())),
        seed_mismatches=sum(a.seed != b.seed for _, a, b in paired_units),
        pass_hat_k=paired_curve(pairs, shown_k, bootstrap) if pairs else {},
        sources=_sources(pairs, expected, flips, bootstrap),
        actions=task_action_diffs(effort_pairs, bootstrap),
        effort=paired_task_effort(effort_pairs, bootstrap),
        flips=flips,
        statistics=statistic_values(
            [
                PairedUnit(*unit, _outcome(base.units.get(unit)), _outcome(arm.units.get(unit)))
                for unit in units
            ]
        ),
    )


def _outcome(end: _UnitEnd | None) -> bool | None:
    """A unit's outcome; None when it is missing (never run, or an infrastructure error)."""
    return None if end is None else end.outcome


def _flips(units: Sequence[tuple[Unit, _UnitEnd, _UnitEnd]]) -> list[Flip]:
    return [
        Flip(task_id=task_id, trial=trial, seed=a.seed, to="pass" if b.outcome else "fail")
        for (task_id, trial), a, b in units
        if a.outcome is not None and b.outcome is not None and a.outcome != b.outcome
    ]


def _sources(
    pairs: Sequence[Pair],
    expected: dict[str, set[tuple[str, str]]],
    flips: Sequence[Flip],
    bootstrap: Bootstrap,
) -> dict[str, list[SourceGroup]]:
    """Δpass^1 by each grouping of `SOURCES`, each group with the McNemar test of its units, Holm-corrected
    over the groups of its grouping."""

    def actions(outcome: TaskOutcome) -> list[str]:
        return sorted(f"{seat}: {name}" for seat, name in expected.get(outcome.task_id, ())) or [MISSING]

    def seats(outcome: TaskOutcome) -> list[str]:
        return sorted({seat for seat, _ in expected.get(outcome.task_id, ())}) or [MISSING]

    keys: dict[str, Callable[[TaskOutcome], list[str]]] = {
        **{name: GROUPINGS[name] for name in ("intent", "subtasks", "persona")},
        "action": actions,
        "seat": seats,
    }
    flipped: dict[str, list[int]] = {}
    for flip in flips:
        flipped.setdefault(flip.task_id, [0, 0])[flip.to == "fail"] += 1
    total = sum(1 for pair in pairs if pair.a.trials and pair.b.trials)
    sources: dict[str, list[SourceGroup]] = {}
    for name in SOURCES:
        groups = paired_groups(pairs, keys[name])
        tests = [_group_test(group, flipped) for _, group in groups]
        corrected = holm(tests)
        sources[name] = [
            _source(key, paired_curve(group, 1, bootstrap)["1"], total, p, p_holm)
            for (key, group), p, p_holm in zip(groups, tests, corrected, strict=True)
        ]
    return sources


def _group_test(group: Sequence[Pair], flipped: dict[str, list[int]]) -> float:
    """The exact McNemar p-value over the units of a group's tasks."""
    to_pass = sum(flipped.get(pair.a.task_id, (0, 0))[0] for pair in group)
    to_fail = sum(flipped.get(pair.a.task_id, (0, 0))[1] for pair in group)
    return mcnemar_p_value(to_pass, to_fail)


def _source(key: str, e: PairedEstimate, total: int, p: float, p_holm: float) -> SourceGroup:
    ci = None if e.ci_low is None or e.ci_high is None else (e.ci_low, e.ci_high)
    contribution = None if e.diff is None or not total else e.diff * e.tasks / total
    return SourceGroup(
        key=key,
        tasks=e.tasks,
        baseline=e.a,
        arm=e.b,
        delta=e.diff,
        ci=ci,
        contribution=contribution,
        p_value=p,
        p_holm=p_holm,
    )
