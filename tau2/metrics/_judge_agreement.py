"""How far a run's judges agree: over every natural-language assertion each judge of the panel gave a
verdict on, Cohen's κ (two judges) or Fleiss' κ (more), the assertions they disagree on, and what each
judge cost. Runs judged by one judge (or none) have nothing to measure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tau2.metrics._kappa import cohen_kappa, fleiss_kappa
from tau2.metrics.usage import UsageSum
from tau2.runs import RecordHead

Statistic = Literal["Cohen's kappa", "Fleiss' kappa"]


class JudgeCost(BaseModel):
    """One judge's calls, tokens and cost over the run; `cost` None when some call was unpriced."""

    model_config = ConfigDict(frozen=True)

    judge: str
    simulations: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    unpriced: int
    """Simulations in which this judge's cost was unknown."""


class JudgeDisagreement(BaseModel):
    """An assertion the judges gave different verdicts on, with each judge's verdict in panel order."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    assertion: str
    verdicts: list[bool]


class JudgeAgreement(BaseModel):
    """The agreement of a panel of judges over a run's valid simulations."""

    model_config = ConfigDict(frozen=True)

    judges: list[str]
    """The judges in panel order (the first decides the reward); a model named twice gets `#n` after it."""
    statistic: Statistic
    kappa: float | None
    """None when no assertion has every judge's verdict, or every verdict is the same one (κ is undefined
    there; `agreed` still counts the assertions decided alike)."""
    assertions: int
    """(Simulation, assertion) pairs every judge gave a verdict on."""
    agreed: int
    """Of those, the ones every judge decided alike."""
    disagreements: list[JudgeDisagreement]
    costs: list[JudgeCost]


def judge_labels(models: Sequence[str]) -> list[str]:
    """Names for the judges of a panel: the model, with `#n` (its place) when the panel names it twice."""
    return [f"{model} #{n}" if models.count(model) > 1 else model for n, model in enumerate(models, 1)]


class JudgeTally:
    """The judges' agreement folded in one record at a time: the panel is the first record's with two or
    more judges; records of another panel are left out. Keeps the verdicts, never the records."""

    def __init__(self) -> None:
        self._models: list[str] | None = None
        self._ratings: list[list[bool]] = []
        self._disagreements: list[JudgeDisagreement] = []
        self._sums: list[UsageSum] = []

    def add(self, record: RecordHead) -> None:
        """Fold one record's verdicts and judge usage in."""
        models = [judge.model for judge in record.judges]
        if self._models is None and len(models) >= 2:
            self._models = models
            self._sums = [UsageSum() for _ in models]
        if models != self._models:
            return
        for total, judge in zip(self._sums, record.judges, strict=True):
            if judge.usage is not None:
                total.add(judge.usage)
        if record.excluded:
            return
        for assertion in record.judges[0].verdicts:
            verdicts = [judge.verdicts.get(assertion) for judge in record.judges]
            passed = [None if verdict is None else verdict.passed for verdict in verdicts]
            decided = [value for value in passed if value is not None]
            if len(decided) < len(passed):
                continue
            self._ratings.append(decided)
            if len(set(decided)) > 1:
                self._disagreements.append(
                    JudgeDisagreement(
                        task_id=record.task_id, trial=record.trial, assertion=assertion, verdicts=decided
                    )
                )

    def result(self) -> JudgeAgreement | None:
        """The agreement of the panel; None when no record was graded by two or more judges."""
        if self._models is None:
            return None
        ratings = self._ratings
        two = len(self._models) == 2
        kappa = (
            cohen_kappa([pair[0] for pair in ratings], [pair[1] for pair in ratings])
            if two
            else fleiss_kappa(ratings)
        )
        labels = judge_labels(self._models)
        return JudgeAgreement(
            judges=labels,
            statistic="Cohen's kappa" if two else "Fleiss' kappa",
            kappa=kappa,
            assertions=len(ratings),
            agreed=len(ratings) - len(self._disagreements),
            disagreements=self._disagreements,
            costs=[_cost(label, total) for label, total in zip(labels, self._sums, strict=True)],
        )


def judge_agreement(records: Iterable[RecordHead]) -> JudgeAgreement | None:
    """The agreement of the judges that graded `records` (the first record with a panel names it; records
    of another panel are left out); None when no record was graded by two or more judges."""
    tally = JudgeTally()
    for record in records:
        tally.add(record)
    return tally.result()


def _cost(judge: str, asked: UsageSum) -> JudgeCost:
    """One judge's usage summed over the simulations it was asked about."""
    return JudgeCost(judge=judge, **asked.line())
