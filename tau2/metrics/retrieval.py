"""Retrieval diagnostics of runs on a knowledge base: recall@k (the share of a task's required documents
the agent was shown), per simulation, per task, and over a run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.runs import RecordHead
from tau2.world import RetrievalRecall

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


def record_recall(record: RecordHead) -> float | None:
    """One simulation's recall@k; None without a knowledge base or required documents."""
    return None if record.retrieval is None else record.retrieval.recall


def mean_recall(records: Sequence[RecordHead]) -> float | None:
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


def retrieval_summary(records: Iterable[RecordHead]) -> RetrievalSummary | None:
    """The run's retrieval configuration and mean recall; None for runs without a knowledge base."""
    tally = RetrievalTally()
    for record in records:
        tally.add(record)
    return tally.summary()


class RetrievalTally:
    """The first retrieval configuration seen and the recall@k of every valid record that has one."""

    def __init__(self) -> None:
        self._first: RetrievalRecall | None = None
        self._recalls: list[float] = []

    def add(self, record: RecordHead) -> None:
        """Note one record's retrieval."""
        if self._first is None and record.retrieval is not None:
            self._first = record.retrieval
        if not record.excluded and (recall := record_recall(record)) is not None:
            self._recalls.append(recall)

    def summary(self) -> RetrievalSummary | None:
        """The run's retrieval configuration and mean recall; None without a knowledge base."""
        if self._first is None:
            return None
        recall = fmean(self._recalls) if self._recalls else None
        return RetrievalSummary(
            configuration=self._first.configuration,
            k=self._first.k,
            recall=recall,
            simulations=len(self._recalls),
        )
