"""Metrics over simulation records: pass^k with bootstrap intervals, flip rate, breakdowns, per-action
diagnostics, the usage ledger, and paired comparisons of two runs. pass^k and its intervals need only
per-task counts of trials and successes (`TaskCounts`), never the records themselves."""

from tau2.metrics.actions import ActionStat, action_stats
from tau2.metrics.bootstrap import Bootstrap, Estimate, estimate, rate_estimate, wilson
from tau2.metrics.breakdown import GROUPINGS, GroupStat, breakdown, breakdowns
from tau2.metrics.checks import CheckStat, check_stats
from tau2.metrics.effort import BOTH, PairedMean, RecordPair, paired_effort, paired_terminations
from tau2.metrics.flips import FlipSummary, flip_summary
from tau2.metrics.outcomes import TaskOutcome, task_outcomes, termination_counts, termination_outcomes
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
from tau2.metrics.usage import SeatUsage, seat_usage

__all__ = [
    "BOTH",
    "GROUPINGS",
    "ActionDiff",
    "ActionStat",
    "Bootstrap",
    "CheckStat",
    "Estimate",
    "FlipSets",
    "FlipSummary",
    "GroupStat",
    "Pair",
    "PairBy",
    "PairedEstimate",
    "PairedGroup",
    "PairedMean",
    "RecordPair",
    "RetrievalSummary",
    "SeatUsage",
    "TaskCounts",
    "TaskOutcome",
    "action_diffs",
    "action_stats",
    "breakdown",
    "breakdowns",
    "check_stats",
    "estimate",
    "flip_sets",
    "flip_summary",
    "pair_key",
    "pair_outcomes",
    "paired_breakdowns",
    "paired_curve",
    "paired_effort",
    "paired_pass_hat_k",
    "paired_terminations",
    "pass_hat_k",
    "pass_hat_k_curve",
    "pass_hat_k_estimates",
    "pass_hat_k_table",
    "pass_hat_k_values",
    "rate_estimate",
    "retrieval_summary",
    "seat_usage",
    "task_outcomes",
    "termination_counts",
    "termination_outcomes",
    "wilson",
]
