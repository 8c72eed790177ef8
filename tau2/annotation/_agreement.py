"""Human success labels against the assertion reward: raw agreement, Cohen's kappa and the simulations on
which they disagree. "Success" counts as a success; "Partial Success" and "Failure" do not, as the reward
is all or nothing."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from tau2.annotation._potato_import import HumanLabel
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
    """Cohen's kappa; None when chance agreement is already perfect (one class only on both sides)."""
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
    human_yes = sum(human for human, *_ in pairs) / total
    reward_yes = sum(reward for _, reward, *_ in pairs) / total
    chance = human_yes * reward_yes + (1 - human_yes) * (1 - reward_yes)
    kappa = None if chance == 1 else (observed - chance) / (1 - chance)
    return LabelAgreement(
        judgements=total,
        agreement=observed,
        kappa=kappa,
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
