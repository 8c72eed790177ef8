"""The JSON documents `tau2 report --json` and `tau2 compare --json` print; `schema_version` changes
whenever a field is removed or changes meaning."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.audit import RunAudit
from tau2.episode import TerminationReason
from tau2.metrics import (
    ActionDiff,
    ActionStat,
    Bootstrap,
    CheckStat,
    CollateralSummary,
    CostSummary,
    Estimate,
    FlipSets,
    FlipSummary,
    FrontierPoint,
    GroupStat,
    JudgeAgreement,
    MissingSummary,
    PairBy,
    PairedEstimate,
    PairedGroup,
    PairedMean,
    PerturbationSummary,
    RetrievalSummary,
    SeatUsage,
    TaskOutcome,
)
from tau2.runs import RunManifest

SCHEMA_VERSION: Final = 3


class _Document(BaseModel):
    model_config = ConfigDict(frozen=True)


class Totals(_Document):
    """Counts over the run's simulations; `expected` is tasks planned × trials."""

    expected: int
    simulations: int
    excluded: int
    """Infrastructure errors, left out of every metric."""
    valid: int
    successes: int
    tasks: int
    mean_steps: float | None
    tool_errors: int
    duration_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationRow:
    """One simulation of the run, without its trajectory (a slotted dataclass: a report holds one per
    simulation)."""

    task_id: str
    trial: int
    seed: int
    intent: str | None = None
    subtasks: list[str] = field(default_factory=list)
    persona: str | None = None
    expects_transfer: bool = False
    reward: float
    termination: TerminationReason
    excluded: bool
    steps: int
    tool_errors: int
    duration_s: float
    tokens: int = 0
    cost: float | None = 0.0
    """USD of both seats; None when a seat was unpriced."""


class RobustnessProfile(_Document):
    """A perturbed run (or experiment arm) against the unperturbed one: per perturbation what it did and
    in which simulations the agent noticed, the run's pass^k, and Δpass^1 with its paired interval."""

    arm: str | None = None
    """The experiment arm (None for a run reported on its own)."""
    perturbations: list[PerturbationSummary]
    pass_hat_k: dict[str, Estimate]
    against: str | None = None
    """The unperturbed arm Δ is measured against (None: no such arm, so no Δ)."""
    delta_pass_hat_1: PairedEstimate | None = None
    """pass^1 of the unperturbed arm (`a`) and of this one (`b`) on the paired tasks, and b − a with its
    paired bootstrap interval."""
    p_value: float | None = None
    """The exact McNemar test on the paired (task, trial) units (experiment reports)."""


class RunReport(_Document):
    """Everything `tau2 report` shows about one run."""

    schema_version: Literal[3] = SCHEMA_VERSION
    kind: Literal["run"] = "run"
    path: str
    manifest: RunManifest
    bootstrap: Bootstrap
    totals: Totals
    pass_hat_k: dict[str, Estimate]
    """k (as a string) → pass^k over the tasks with at least k valid trials."""
    flips: FlipSummary
    breakdowns: dict[str, list[GroupStat]]
    """`intent`, `fault`, `subtasks`, `resolution`, `persona`, `mode` → one row per group."""
    actions: list[ActionStat]
    checks: list[CheckStat] = []
    """Reward-basis checks per kind and role (tasks judged by a basis only)."""
    usage: list[SeatUsage]
    cost: CostSummary | None = None
    """Cost per simulation and per success, for the run and per seat and judge, and what not asking the
    judges when a deterministic part had already failed saved."""
    terminations: dict[str, int]
    termination_outcomes: dict[str, dict[str, int]]
    """Termination reason → valid simulations that ended so, split into `pass` and `fail`."""
    tasks: list[TaskOutcome]
    simulations: list[SimulationRow]
    warnings: list[str]
    missing: MissingSummary | None = None
    """Trials that ended on an infrastructure error, counted as missing rather than dropped: how many, the
    tasks they touch, the tasks with no valid trial at all (by id), and pass^k's bounds had every missing
    trial failed (`low`) or passed (`high`)."""
    retrieval: RetrievalSummary | None = None
    """Runs on a knowledge base: the retrieval configuration and the mean recall@k of required documents."""
    audit: RunAudit | None = None
    """The simulated-user audit (each check's rate with an interval) and each failed simulation's cause."""
    judges: JudgeAgreement | None = None
    """Runs with two or more judges: their agreement (κ), the assertions they disagree on, each one's cost."""
    robustness: RobustnessProfile | None = None
    """Runs under perturbations: what each did, when the agent noticed, and Δpass^1 against the unperturbed
    arm of the run's experiment (when it is an arm of one)."""
    collateral: CollateralSummary | None = None
    """Collateral damage: the simulations that changed records their task's reference leaves alone (and, for
    database-scored tasks, those that left out a reference write), by seat and tool; None without records."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def collateral_rate(self) -> float | None:
        """The share of checked simulations with collateral damage (`collateral.rate`); None when none was
        checked."""
        return None if self.collateral is None else self.collateral.rate.value


class Factor(_Document):
    """A configuration field whose value differs between the two runs."""

    name: str
    a: str
    b: str


class RunRef(_Document):
    """Which run a comparison side is."""

    run_id: str
    path: str
    mode: str
    agent: str
    user: str | None
    persona_override: str | None
    trials: int


class ComparisonReport(_Document):
    """Everything `tau2 compare` shows: run B against run A on the tasks both share (differences B − A)."""

    schema_version: Literal[3] = SCHEMA_VERSION
    kind: Literal["comparison"] = "comparison"
    title: str
    factors: list[Factor]
    pair_by: PairBy
    a: RunRef
    b: RunRef
    bootstrap: Bootstrap
    shared: int
    only_a: int
    only_b: int
    pass_hat_k: dict[str, PairedEstimate]
    flips: dict[str, FlipSets]
    """`majority` and `all_trials` → the keys solved only in B (`gained`) and only in A (`lost`)."""
    breakdowns: dict[str, list[PairedGroup]]
    effort: list[PairedMean]
    """Per seat (`agent`, `user`, `both`): turns, messages, tool calls, tool errors, tokens, cost per
    simulation in A and B over the shared tasks, and B − A with a paired interval."""
    terminations: list[PairedMean]
    """Per termination reason: the share of simulations ending so, A, B and B − A."""
    actions: list[ActionDiff]
    warnings: list[str]
    missing: dict[str, MissingSummary] = {}
    """`a` and `b` → each run's missing trials over the shared tasks, with pass^k's bounds."""
    frontier: list[FrontierPoint] = []
    """A and B on the cost–accuracy plane over the shared tasks: pass^1 against the cost per simulation,
    each with its interval, the Pareto frontier marked."""
    collateral: dict[str, CollateralSummary] = {}
    """`a` and `b` → each run's collateral damage over the shared tasks."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def differ_in(self) -> list[str]:
        """The names of what the runs differ in (`factors`), e.g. `["mode"]` for solo against interactive."""
        return [factor.name for factor in self.factors]
