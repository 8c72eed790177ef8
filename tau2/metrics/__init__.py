"""Metrics over simulation records: pass^k with bootstrap intervals, flip rate, breakdowns, per-action
diagnostics, the usage ledger, collateral damage (`CollateralTally`), and paired comparisons of two runs;
the exact McNemar test, Holm's correction and the bounds left by missing trials; the statistics added to
every comparison of an experiment (an extension point, `ExperimentStatistic`, here so that a plugin
defining one loads without the runner); what a run's perturbations did
(`RobustnessTally`); the agreement of several judges (Cohen's and Fleiss' κ). The
statistics only experiments use are `tau2.experiments`'. pass^k and its intervals need only per-task
counts of trials and successes (`TaskCounts`), never the records themselves."""

from tau2.metrics._collateral import (
    CollateralCall,
    CollateralSimulation,
    CollateralSummary,
    CollateralTally,
)
from tau2.metrics._cost import (
    UNDEFINED,
    Cost,
    CostPer,
    CostPerSimulation,
    CostSummary,
    CostTally,
    JudgeSaving,
    SeatCost,
    record_cost,
)
from tau2.metrics._frontier import FrontierPoint, frontier_point, pareto_frontier
from tau2.metrics._holm import holm
from tau2.metrics._judge_agreement import (
    JudgeAgreement,
    JudgeCost,
    JudgeDisagreement,
    judge_agreement,
    judge_labels,
)
from tau2.metrics._kappa import cohen_kappa, fleiss_kappa
from tau2.metrics._mcnemar import McNemar, mcnemar, mcnemar_p_value
from tau2.metrics._missing import MissingSummary, PassKBounds, missing_summary, pass_hat_k_bounds
from tau2.metrics._statistic import (
    BUILT_IN_STATISTICS,
    ExperimentStatistic,
    PairedUnit,
    StatisticValue,
    check_experiment_statistic,
    experiment_statistics,
    register_experiment_statistic,
    statistic_values,
)
from tau2.metrics._tally import RunTally
from tau2.metrics.actions import ActionStat, action_stats
from tau2.metrics.bootstrap import (
    NO_ESTIMATE,
    Bootstrap,
    Estimate,
    estimate,
    rate_estimate,
    rate_estimates,
    wilson,
)
from tau2.metrics.breakdown import GROUPINGS, GroupStat, breakdown, breakdowns
from tau2.metrics.checks import CheckStat, check_stats
from tau2.metrics.effort import (
    BOTH,
    EffortPair,
    PairedMean,
    RecordPair,
    TaskEffort,
    paired_effort,
    paired_task_effort,
    paired_task_terminations,
    paired_terminations,
    task_efforts,
)
from tau2.metrics.flips import FlipSummary, flip_summary
from tau2.metrics.outcomes import (
    OutcomeTally,
    TaskOutcome,
    TaskTally,
    task_outcomes,
    termination_counts,
    termination_outcomes,
)
from tau2.metrics.paired import (
    ActionDiff,
    FlipSets,
    Pair,
    PairBy,
    PairedGroup,
    action_diffs,
    flip_sets,
    pair_key,
    pair_outcomes,
    paired_breakdowns,
    paired_curve,
    task_action_diffs,
)
from tau2.metrics.paired_stats import PairedEstimate, paired_pass_hat_k
from tau2.metrics.passk import (
    TaskCounts,
    pass_hat_k,
    pass_hat_k_curve,
    pass_hat_k_estimates,
    pass_hat_k_table,
    pass_hat_k_values,
)
from tau2.metrics.retrieval import RetrievalSummary, retrieval_summary
from tau2.metrics.robustness import PerturbationSummary, RobustnessTally
from tau2.metrics.usage import SeatUsage, seat_usage

__all__ = [
    "BOTH",
    "BUILT_IN_STATISTICS",
    "GROUPINGS",
    "NO_ESTIMATE",
    "UNDEFINED",
    "ActionDiff",
    "ActionStat",
    "Bootstrap",
    "CheckStat",
    "CollateralCall",
    "CollateralSimulation",
    "CollateralSummary",
    "CollateralTally",
    "Cost",
    "CostPer",
    "CostPerSimulation",
    "CostSummary",
    "CostTally",
    "EffortPair",
    "Estimate",
    "ExperimentStatistic",
    "FlipSets",
    "FlipSummary",
    "FrontierPoint",
    "GroupStat",
    "JudgeAgreement",
    "JudgeCost",
    "JudgeDisagreement",
    "JudgeSaving",
    "McNemar",
    "MissingSummary",
    "OutcomeTally",
    "Pair",
    "PairBy",
    "PairedEstimate",
    "PairedGroup",
    "PairedMean",
    "PairedUnit",
    "PassKBounds",
    "PerturbationSummary",
    "RecordPair",
    "RetrievalSummary",
    "RobustnessTally",
    "RunTally",
    "SeatCost",
    "SeatUsage",
    "StatisticValue",
    "TaskCounts",
    "TaskEffort",
    "TaskOutcome",
    "TaskTally",
    "action_diffs",
    "action_stats",
    "breakdown",
    "breakdowns",
    "check_experiment_statistic",
    "check_stats",
    "cohen_kappa",
    "estimate",
    "experiment_statistics",
    "fleiss_kappa",
    "flip_sets",
    "flip_summary",
    "frontier_point",
    "holm",
    "judge_agreement",
    "judge_labels",
    "mcnemar",
    "mcnemar_p_value",
    "missing_summary",
    "pair_key",
    "pair_outcomes",
    "paired_breakdowns",
    "paired_curve",
    "paired_effort",
    "paired_pass_hat_k",
    "paired_task_effort",
    "paired_task_terminations",
    "paired_terminations",
    "pareto_frontier",
    "pass_hat_k",
    "pass_hat_k_bounds",
    "pass_hat_k_curve",
    "pass_hat_k_estimates",
    "pass_hat_k_table",
    "pass_hat_k_values",
    "rate_estimate",
    "rate_estimates",
    "record_cost",
    "register_experiment_statistic",
    "retrieval_summary",
    "seat_usage",
    "statistic_values",
    "task_action_diffs",
    "task_efforts",
    "task_outcomes",
    "termination_counts",
    "termination_outcomes",
    "wilson",
]
