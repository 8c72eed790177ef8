"""Running experiments: every arm an ordinary run in its own directory, their units interleaved through one
executor so an interrupted experiment stays balanced, trials allocated adaptively under a budget, a spend
cap enforced while running and a cost estimate before the first simulation."""

from tau2.experiments._cost import CostEstimate, estimate_cost, simulation_cost
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

__all__ = [
    "CostEstimate",
    "Direction",
    "ExperimentProgress",
    "ExperimentResult",
    "OpenExperiment",
    "TrialPlan",
    "arun_experiment",
    "estimate_cost",
    "experiment_summary",
    "open_experiment",
    "pilot_rates",
    "plan_trials",
    "run_experiment",
    "simulation_cost",
]
