"""Experiments, the whole concept: the configuration (a base run configuration, its arms and budget), the
experiment directory (`experiment.json` beside one ordinary run directory per arm), running it (the arms'
units interleaved through one executor so an interrupted experiment stays balanced, trials allocated
adaptively under a budget, a spend cap enforced while running and a cost estimate before the first
simulation), planning its trials, the statistics only experiments use (power, the minimum detectable
difference, an arm against the baseline and its verdict, the adaptive allocation) and its report."""

from tau2.experiments._allocation import PRIOR, Allocation, Budget, StopReason, allocate
from tau2.experiments._config import ExperimentArm, ExperimentBudget, ExperimentConfig
from tau2.experiments._cost import CostEstimate, estimate_cost, simulation_cost
from tau2.experiments._detectable import DEFAULT_POWER, minimum_detectable_difference
from tau2.experiments._manifest import (
    EXPERIMENT_FILE,
    ExperimentManifest,
    ExperimentStatus,
    ExperimentStop,
    arm_run_dir,
    load_experiment,
    redacted,
)
from tau2.experiments._power import arm_rates, mcnemar_power, trials_needed
from tau2.experiments._report import (
    ArmSummary,
    ExperimentComparison,
    ExperimentReport,
    Flip,
    SeatMean,
    SourceGroup,
    build_experiment_report,
    load_arms,
    refuse_own_files,
)
from tau2.experiments._report_view import experiment_page, experiment_tables
from tau2.experiments._robustness import against_unperturbed_arm, unperturbed_arm
from tau2.experiments._run import (
    ExperimentProgress,
    ExperimentResult,
    OpenExperiment,
    arun_experiment,
    open_experiment,
    run_experiment,
)
from tau2.experiments._sizing import Direction, TrialPlan, pilot_rates, plan_trials
from tau2.experiments._summary import experiment_summary
from tau2.experiments._verdict import ArmComparison, compare_arms, verdict_sentence

__all__ = [
    "DEFAULT_POWER",
    "EXPERIMENT_FILE",
    "PRIOR",
    "Allocation",
    "ArmComparison",
    "ArmSummary",
    "Budget",
    "CostEstimate",
    "Direction",
    "ExperimentArm",
    "ExperimentBudget",
    "ExperimentComparison",
    "ExperimentConfig",
    "ExperimentManifest",
    "ExperimentProgress",
    "ExperimentReport",
    "ExperimentResult",
    "ExperimentStatus",
    "ExperimentStop",
    "Flip",
    "OpenExperiment",
    "SeatMean",
    "SourceGroup",
    "StopReason",
    "TrialPlan",
    "against_unperturbed_arm",
    "allocate",
    "arm_rates",
    "arm_run_dir",
    "arun_experiment",
    "build_experiment_report",
    "compare_arms",
    "estimate_cost",
    "experiment_page",
    "experiment_summary",
    "experiment_tables",
    "load_arms",
    "load_experiment",
    "mcnemar_power",
    "minimum_detectable_difference",
    "open_experiment",
    "pilot_rates",
    "plan_trials",
    "redacted",
    "refuse_own_files",
    "run_experiment",
    "simulation_cost",
    "trials_needed",
    "unperturbed_arm",
    "verdict_sentence",
]
