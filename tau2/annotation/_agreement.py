"""Human success labels against the assertion reward: raw agreement, Cohen's kappa and the simulations on
which they disagree. "Success" counts as a success; "Partial Success" and "Failure" do not, as the reward
is all or nothing."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from tau2.annotation._potato_import import HumanLabel
from tau2.metrics import cohen_kappa
from tau2.runs import SimulationRecord

SUCCESS: str = "Success"


class Disagreement(BaseModel):
    """A judgement that contradicts the reward."""

    model_config = ConfigDict(frozen=True)

    simulation: str
    annotator: str
    label: str
    reward: float


class LabelAgreement(BaseModel):
    """How far the judges' success labels agree with the reward."""

    model_config = ConfigDict(frozen=True)

    judgements: int
    """(annotator, simulation) pairs with a success label."""
    agreement: float | None
    kappa: float | None
    """Cohen's kappa (`tau2.metrics.cohen_kappa`); None when both sides use one class only, where it is
    undefined."""
    disagreements: list[Disagreement]


def label_agreement(labels: list[HumanLabel], records: Iterable[SimulationRecord]) -> LabelAgreement:
    """Compare each success label with the reward of the simulation it judges."""
    rewards = {(record.task_id, record.trial): record for record in records}
    pairs: list[tuple[bool, bool, HumanLabel, float]] = []
    for label in labels:
        record = rewards.get((label.task_id, label.trial))
        if label.task_success is None or record is None or record.excluded:
            continue
        pairs.append((label.task_success == SUCCESS, record.success, label, record.reward))
    if not pairs:
        return LabelAgreement(judgements=0, agreement=None, kappa=None, disagreements=[])
    total = len(pairs)
    observed = sum(human == reward for human, reward, *_ in pairs) / total
    return LabelAgreement(
        judgements=total,
        agreement=observed,
        kappa=cohen_kappa([human for human, *_ in pairs], [reward for _, reward, *_ in pairs]),
        disagreements=[
            Disagreement(
                simulation=label.simulation,
                annotator=label.annotator,
                label=label.task_success or "",
                reward=reward_value,
            )
            for human, reward, label, reward_value in pairs
            if human != reward
        ],
    )
