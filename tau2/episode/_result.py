"""What a finished episode produced: its trajectory, evaluation, timing and the world's changes."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    SkipValidation,
    computed_field,
    model_serializer,
)

from tau2.episode._config import EpisodeConfig
from tau2.episode._evaluation import EvaluationResult
from tau2.episode._trajectory import TerminationReason, Trajectory
from tau2.perturbations import PerturbationRecord
from tau2.tasks import Task
from tau2.world import RecordWrite, StateChange


class EpisodeTiming(BaseModel):
    """Wall-clock seconds spent building the world, conversing and evaluating."""

    model_config = ConfigDict(frozen=True)

    setup_s: float
    conversation_s: float
    evaluation_s: float


class EpisodeResult(BaseModel):
    """Everything one episode produced; serialised as one JSON line by the runner."""

    task_id: str
    config: EpisodeConfig
    agent: str | None = None
    """Label of the agent's spec, e.g. `llm:gpt-4o-mini`."""
    user: str | None = None
    """Label of the user's spec; None in solo mode."""
    trajectory: Trajectory
    evaluation: EvaluationResult
    seed: int | None = None
    timing: EpisodeTiming
    state_changes: list[StateChange] = []
    """What the episode changed in the world, from after initialisation to the end."""
    record_writes: dict[str, RecordWrite] | None = None
    """The records those changes touch, by their path in the state: each one's name and the calls (and
    seats) that changed it; what the runner measures collateral damage from (None: not tracked)."""
    perturbation: PerturbationRecord | None = None
    """What the run's perturbations did in this episode; None when they did nothing (or there were none)."""
    played: Task | None = Field(default=None, exclude=True)
    """The task as played when a perturbation changed it before the episode (not serialised: the record
    names the task)."""
    played_base: SkipValidation[BaseModel | None] = Field(default=None, exclude=True)
    """The renamed state the played world started from, when a perturbation renamed the data (not
    serialised): with `played`, what the reference solution is replayed on to tell collateral damage."""

    @model_serializer(mode="wrap")
    def _omit_unperturbed(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `perturbation` out of an episode the perturbations left untouched, so such a result reads
        as it always did."""
        data: dict[str, Any] = handler(self)
        if data.get("perturbation") is None:
            data.pop("perturbation", None)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reward(self) -> float:
        """The evaluation's reward (stored once, in `evaluation`)."""
        return self.evaluation.reward

    @computed_field  # type: ignore[prop-decorator]
    @property
    def termination(self) -> TerminationReason:
        """Why the episode ended (stored once, in `trajectory`; a finished episode always has a reason)."""
        termination = self.trajectory.termination
        assert termination is not None, "a finished episode's trajectory records why it ended"
        return termination
