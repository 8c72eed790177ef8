"""Scoring a run's stored conversations again, into a new run directory, the original left untouched:
against other task definitions (`regrade_suite`: offline, every stored trajectory replayed on the revised
tasks, each verdict that flips listed with its reason) or by other judges (`regrade_judges`: the stored
transcripts judged again by other models)."""

from tau2.regrade._judges import RegradeResult, RewardFlip, regrade_judges
from tau2.regrade._suite import RegradeReport, VerdictFlip, regrade_suite

__all__ = ["RegradeReport", "RegradeResult", "RewardFlip", "VerdictFlip", "regrade_judges", "regrade_suite"]
