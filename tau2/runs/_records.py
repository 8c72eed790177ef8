"""Result records: one per finished simulation, appended to a run's JSONL store and read by reports."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, field_serializer, model_validator

from tau2.episode import ActionRecord, AssertionRecord, CheckRecord, Mode, TerminationReason, Trajectory
from tau2.llm import Usage
from tau2.world import Side, StateChange

SUMMARY_FIELDS: Final = ("termination", "termination_detail", "steps", "usage")
"""Fields a record and its trajectory share: stored once, in the record (whose trajectory may be omitted),
left out of the stored trajectory and filled back in from the record when it is read."""


class SimulationRecord(BaseModel):
    """Everything reports need about one (task, trial) simulation."""

    model_config = ConfigDict(frozen=True)

    run_id: str | None = None
    """The run that produced the record (None in records written before runs stamped their records)."""
    task_id: str
    trial: int
    seed: int
    intent: str | None = None
    subtasks: list[str] = Field(default_factory=list)
    persona: str | None = None
    mode: Mode
    oracle_plan: bool = False
    reward: float
    termination: TerminationReason
    termination_detail: str | None = None
    expects_transfer: bool = False
    assertions: list[AssertionRecord] = Field(default_factory=list)
    actions: list[ActionRecord] = Field(default_factory=list)
    tool_errors: int = 0
    steps: int = 0
    usage: dict[Side, Usage] = Field(default_factory=dict)
    checks: list[CheckRecord] = Field(default_factory=list)
    """Reward-basis components of tasks judged by one (database, information, actions, statements)."""
    judge_usage: Usage | None = None
    """What the natural-language judge cost for this simulation."""
    duration_s: float = 0.0
    state_changes: list[StateChange] = Field(default_factory=list)
    """What the episode changed in the world, start to end (empty for records written before this field)."""
    trajectory: Trajectory | None = None

    @model_validator(mode="before")
    @classmethod
    def _fill_trajectory_summary(cls, data: Any) -> Any:
        """Give a stored trajectory its summary back from the record (the one stored copy); records
        written before the summary was stored once carry both, and the record's copy wins."""
        if isinstance(data, dict) and isinstance(data.get("trajectory"), dict):
            summary = {name: data[name] for name in SUMMARY_FIELDS if name in data}
            data = {**data, "trajectory": {**data["trajectory"], **summary}}
        return data

    @field_serializer("trajectory")
    def _store_trajectory_once(self, trajectory: Trajectory | None, info: SerializationInfo) -> Any:
        """The trajectory without the summary the record already holds."""
        if trajectory is None:
            return None
        return trajectory.model_dump(
            mode=info.mode,
            exclude=set(SUMMARY_FIELDS),
            exclude_defaults=info.exclude_defaults,
            exclude_none=info.exclude_none,
        )

    @property
    def num_subtasks(self) -> int:
        """Number of composed subtasks (1 for an unparsed task)."""
        return max(1, len(self.subtasks))

    @property
    def excluded(self) -> bool:
        """Infrastructure failures say nothing about the actors and are left out of metrics."""
        return self.termination.is_infrastructure

    @property
    def success(self) -> bool:
        """Binary outcome used by pass^k."""
        return self.reward >= 1.0
