"""Retrieval diagnostics of runs on a knowledge base: recall@k (the share of a task's required documents
the agent was shown), per simulation, per task, and over a run."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.runs import SimulationRecord

ALL_SEEN: Final = "every required document seen"
SOME_SEEN: Final = "some required documents seen"
NONE_SEEN: Final = "no required document seen"


class RetrievalSummary(BaseModel):
    """A run's retrieval configuration and its mean recall@k."""

    model_config = ConfigDict(frozen=True)

    configuration: str
    k: int
    recall: float | None
    """Mean recall@k over the valid simulations of tasks that name required documents; None without any."""
    simulations: int
    """How many simulations the mean covers."""


def record_recall(record: SimulationRecord) -> float | None:
    """One simulation's recall@k; None without a knowledge base or required documents."""
    return None if record.retrieval is None else record.retrieval.recall


def mean_recall(records: Sequence[SimulationRecord]) -> float | None:
    """Mean recall@k of the valid records that have one."""
    values = [
        value for record in records if not record.excluded and (value := record_recall(record)) is not None
    ]
    return fmean(values) if values else None


def recall_group(recall: float | None) -> str | None:
    """The breakdown group of a task's mean recall: all, some or none of its documents seen."""
    if recall is None:
        return None
    if recall >= 1.0:
        return ALL_SEEN
    return SOME_SEEN if recall > 0.0 else NONE_SEEN


def retrieval_summary(records: Sequence[SimulationRecord]) -> RetrievalSummary | None:
    """The run's retrieval configuration and mean recall; None for runs without a knowledge base."""
    first = next((record.retrieval for record in records if record.retrieval is not None), None)
    if first is None:
        return None
    counted = [record for record in records if not record.excluded and record_recall(record) is not None]
    return RetrievalSummary(
        configuration=first.configuration, k=first.k, recall=mean_recall(records), simulations=len(counted)
    )
