"""Result records: one per finished simulation, appended to a run's JSONL store and read by reports."""

from __future__ import annotations

from typing import Any, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from tau2.episode import (
    ActionRecord,
    AssertionRecord,
    CheckRecord,
    EntryKind,
    JudgeRecord,
    JudgeSkip,
    Mode,
    TerminationReason,
    Trajectory,
)
from tau2.findings import UserFinding
from tau2.llm import Usage
from tau2.perturbations import PerturbationRecord
from tau2.runs._provenance import Provenance
from tau2.world import RecordWrite, RetrievalRecall, Side, StateChange

SUMMARY_FIELDS: Final = ("termination", "termination_detail", "steps", "usage")
"""Fields a record and its trajectory share: stored once, in the record (whose trajectory may be omitted),
left out of the stored trajectory and filled back in from the record when it is read."""


class StoredTrajectory(Trajectory):
    """A trajectory inside a record: the summary it shares with the record is serialised by the record."""

    termination: TerminationReason | None = Field(default=None, exclude=True)
    termination_detail: str | None = Field(default=None, exclude=True)
    steps: int = Field(default=0, exclude=True)
    usage: dict[Side, Usage] = Field(default_factory=dict, exclude=True)


class RecordHead(BaseModel):
    """A simulation's record without its transcript and state changes: everything reports aggregate, read
    from a results line without building (or validating) the bulky rest, which it ignores."""

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
    format_failures: dict[Side, int] = Field(default_factory=dict)
    """Per seat, rejected replies whose text looked like tool calls (none for records written before this
    field, or without a trajectory)."""
    steps: int = 0
    usage: dict[Side, Usage] = Field(default_factory=dict)
    """Per seat model usage; its `truncated` counts the replies cut off at the token cap."""
    checks: list[CheckRecord] = Field(default_factory=list)
    """Reward-basis components of tasks judged by one (database, information, actions, statements)."""
    judge_usage: Usage | None = None
    """What the natural-language judge cost for this simulation (a panel's judges summed)."""
    judges: list[JudgeRecord] = Field(default_factory=list)
    """With a panel of two or more judges, each judge's verdicts; the first judge's decide the checks and
    the reward (empty with one judge, so such records read as they always did)."""
    judge_skipped: JudgeSkip | None = None
    """Why the judges were not asked about this simulation's assertions: `deterministic_failure`, a
    deterministic part of the reward had already failed (the reward is 0 either way); None when they were
    asked or had nothing to judge."""
    duration_s: float = 0.0
    retrieval: RetrievalRecall | None = None
    """For domains with a knowledge base: the documents the task needs and those the agent was shown."""
    provenance: Provenance | None = None
    """The hashes the record was scored against (its task's, the policy's, the data's, …); None in records
    of runs made before runs recorded them."""
    user_findings: list[UserFinding] | None = None
    """The simulated-user checks that fired on the trajectory, found when the simulation was judged (empty:
    audited, none fired); None when it was not: solo runs, infrastructure failures, records made before
    runs recorded findings (a report audits those itself, from the trajectory)."""
    task_defects: list[str] | None = None
    """For a failed simulation, the error checks of `tau2 lint` on its task (as played), found when it was
    judged; None on successes and on records made before."""
    collateral: list[RecordWrite] | None = None
    """Collateral damage: the records the simulation changed that its task's reference solution does not
    change, each with the calls (trajectory entry, seat, tool) that changed it (empty: checked, none); None
    when not checked (infrastructure failures, records made before runs checked it)."""
    missing_writes: list[RecordWrite] | None = None
    """For a task scored by its database: the records its reference solution changes that the simulation
    left alone (no calls) or changed to other values (the calls that did); None for other tasks."""
    perturbation: PerturbationRecord | None = None
    """What the run's perturbations did in this simulation (each fault, dropped call, withheld fact) and
    which the agent noticed; None when they did nothing, or the run had none."""

    @model_serializer(mode="wrap")
    def _omit_unset_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `retrieval` out for domains without a knowledge base, `provenance`, `user_findings`,
        `task_defects`, `collateral`, `missing_writes` and `perturbation` out of records without them,
        `judge_skipped` while the judges were asked, and `judges` out without a panel of judges, so such
        records stay as they were."""
        data: dict[str, Any] = handler(self)
        for name in (
            "retrieval",
            "provenance",
            "user_findings",
            "task_defects",
            "collateral",
            "missing_writes",
            "judge_skipped",
            "perturbation",
        ):
            if data.get(name) is None:
                data.pop(name, None)
        if not data.get("judges"):
            data.pop("judges", None)
        return data

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


class _ResultShape(BaseModel):
    """Whether a tool result succeeded (its content is never built)."""

    model_config = ConfigDict(frozen=True)

    ok: bool


class EntryShape(BaseModel):
    """One trajectory entry reduced to what effort measures count: its seat, its kind and, for a tool
    result, whether it succeeded."""

    model_config = ConfigDict(frozen=True)

    seat: Side
    kind: EntryKind
    result: _ResultShape | None = None


class TrajectoryShape(BaseModel):
    """A stored trajectory's entries as `EntryShape`s: no text, call or result content is built."""

    model_config = ConfigDict(frozen=True)

    entries: list[EntryShape] = Field(default_factory=list)


class EffortHead(RecordHead):
    """A record's head and the shape of its transcript: what a comparison's effort measures read (messages,
    tool calls and failed tool results per seat), read from a results line without building the
    transcript's text or the state changes."""

    trajectory: TrajectoryShape | None = None


class SimulationRecord(RecordHead):
    """Everything reports need about one (task, trial) simulation: its head, what it changed in the world
    and its transcript."""

    state_changes: list[StateChange] = Field(default_factory=list)
    """What the episode changed in the world, start to end (empty for records written before this field)."""
    trajectory: StoredTrajectory | None = None

    @model_validator(mode="before")
    @classmethod
    def _store_summary_once(cls, data: Any) -> Any:
        """Keep the trajectory's summary the record's (the one stored copy): a stored trajectory gets it
        back from the record, and a live one becomes a `StoredTrajectory`. Records written before the
        summary was stored once carry both copies; the record's wins."""
        if not isinstance(data, dict):
            return data
        trajectory = data.get("trajectory")
        if isinstance(trajectory, dict):
            return _with_summary(data, trajectory)
        if isinstance(trajectory, Trajectory) and not isinstance(trajectory, StoredTrajectory):
            summary = {name: data[name] for name in SUMMARY_FIELDS if name in data}
            fields = {**dict(trajectory), **summary}  # already validated: no copy of the transcript is made
            stored = StoredTrajectory.model_construct(trajectory.model_fields_set | summary.keys(), **fields)
            return {**data, "trajectory": stored}
        return data


class TrajectoryRecord(BaseModel):
    """A record read for its trajectory alone (with the summary the record stores once): what the
    simulated-user audit reads of a record whose head is already read. The rest of the line is skipped."""

    model_config = ConfigDict(frozen=True)

    trajectory: StoredTrajectory | None = None

    @model_validator(mode="before")
    @classmethod
    def _store_summary_once(cls, data: Any) -> Any:
        """The trajectory gets its summary back from the record, as in `SimulationRecord`."""
        if isinstance(data, dict) and isinstance(trajectory := data.get("trajectory"), dict):
            return _with_summary(data, trajectory)
        return data


def _with_summary(data: dict[str, Any], trajectory: dict[str, Any]) -> dict[str, Any]:
    """A stored record's data with its trajectory's summary filled back in from the record."""
    summary = {name: data[name] for name in SUMMARY_FIELDS if name in data}
    return {**data, "trajectory": {**trajectory, **summary}}
