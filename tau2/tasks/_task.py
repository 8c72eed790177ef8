"""Tasks: what a simulation sets up, what the user knows and wants, and how success is judged."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    StrictBool,
    field_validator,
    model_serializer,
)

from tau2._jsonfile import field_path, first_unpaired_surrogate
from tau2.tasks._reward_basis import RewardType
from tau2.world import Side

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""C0 and C1 control characters (newline and tab among them), DEL, and the Unicode line and paragraph
separators."""


def check_task_id(task_id: str) -> str:
    """`task_id` when it can name a task, else a `ValueError` saying why: an empty or blank id could be
    neither selected nor told apart in a report, and a control character (a newline) would break or forge
    the lines commands print about the task."""
    if not task_id.strip():
        raise ValueError("a task id may not be empty")
    control = _CONTROL.search(task_id)
    if control is not None:
        raise ValueError(
            f"a task id may not hold a control character ({control.group()!r} at character {control.start()})"
        )
    return task_id


TaskId = Annotated[str, AfterValidator(check_task_id)]
"""A task's id, as task files and configurations give it: not blank, no control characters."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _text_only(cls, value: Any) -> Any:
        """A lone UTF-16 surrogate is not text: no task file, suite, record or content hash can hold one
        (task files refuse it when read; this refuses it in a task built in code)."""
        where = first_unpaired_surrogate(value)
        if where is not None:
            inside = field_path(where)
            raise ValueError(
                f"{inside + ': ' if inside else ''}contains an unpaired UTF-16 surrogate (not text)"
            )
        return value


class EnvCall(_Frozen):
    """One call of an env function or tool on one side, e.g. a fault injection at initialisation."""

    side: Side
    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)

    def describe(self) -> str:
        """Compact `a.name(k=v, …)` / `u.name(…)` form for messages and plans."""
        args = ", ".join(f"{key}={value!r}" for key, value in self.arguments.items())
        return f"{'a' if self.side is Side.AGENT else 'u'}.{self.name}({args})"


class AssertionCall(EnvCall):
    """An assertion env function and the boolean it must return for the task to pass."""

    expected: StrictBool = True
    """Strict: a string such as `"no"` is a mistake in the file, never read as True."""
    message: str | None = None


class SolutionStep(EnvCall):
    """One reference action: a tool call and the seat (side) that performs it."""

    action_id: str
    compare_args: list[str] | None = None
    """Arguments compared when matching trajectories: None = all, [] = name only."""
    info: str | None = None


class Evaluation(_Frozen):
    """How a finished episode is judged: gating assertions plus diagnostics-only reference actions, or,
    when `reward_basis` is set, the τ²-bench components it names (see `tau2.episode._basis`)."""

    assertions: list[AssertionCall]
    solution: list[SolutionStep] = Field(default_factory=list)
    expects_transfer: StrictBool = False
    """The correct outcome is a hand-off to a human; a transfer must have happened."""
    reward_basis: list[RewardType] | None = None
    """The components whose product is the reward; None = the assertions (and transfer) decide."""
    communicate_info: list[str] | None = None
    """Items the agent must tell the customer (each must appear in one of its messages)."""
    nl_assertions: list[str] | None = None
    """Statements about the conversation an LLM judge checks."""

    @model_serializer(mode="wrap")
    def _omit_unset_basis(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave the τ²-bench fields out while unset, so files of assertion-judged tasks stay as they were."""
        data: dict[str, Any] = handler(self)
        for name in _BASIS_FIELDS:
            if data.get(name) is None:
                data.pop(name, None)
        return data


_BASIS_FIELDS = ("reward_basis", "communicate_info", "nl_assertions")


class UserInstructions(_Frozen):
    """What the simulated customer knows, wants and how to behave (the task-specific part)."""

    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str
    late_info: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """What the customer knows but gives only once asked for it, never in its opening (a brief varied by
    `fact_late`); left out of the task's content when absent, so no task's content hash changes."""


class UserScenario(_Frozen):
    """The user seat's brief: its instructions and the persona text it plays."""

    instructions: UserInstructions | str
    persona_text: str | None = None

    def instruction_text(self, *, known_only: bool = False) -> str:
        """The instructions as one text, the structured parts in order; `known_only` leaves out what the
        user is told it does not know."""
        instructions = self.instructions
        if isinstance(instructions, str):
            return instructions
        unknown = None if known_only else instructions.unknown_info
        parts = (
            instructions.reason_for_call,
            instructions.known_info,
            instructions.late_info,
            unknown,
            instructions.task_instructions,
        )
        return "\n\n".join(part for part in parts if part)

    def reason(self) -> str:
        """The customer's reason for calling: the structured reason, or the whole instructions when they
        are free text (which do not tell the reason apart)."""
        instructions = self.instructions
        return instructions if isinstance(instructions, str) else instructions.reason_for_call

    def text(self) -> str:
        """Everything the user seat is told about itself: the instructions, then the persona."""
        return "\n\n".join(part for part in (self.instruction_text(), self.persona_text) if part)


class InitialData(_Frozen):
    """Recursive patches applied to each side's data before the init calls (dicts merge, else replace)."""

    agent_data: dict[str, Any] | None = None
    user_data: dict[str, Any] | None = None


class Task(_Frozen):
    """One verified simulation task."""

    id: TaskId
    """Names the task in selections, records and reports: never empty or blank, no control characters."""
    domain: str
    intent: str | None = None
    subtasks: list[str] = Field(default_factory=list)
    persona: str | None = None
    """Persona label as in task IDs (`None`, `Easy`, `Hard`, …); None when unspecified."""
    purpose: str | None = None
    user_scenario: UserScenario
    ticket: str | None = None
    """The written ticket the agent reads in solo mode."""
    initial_data: InitialData | None = None
    initialization: list[EnvCall] = Field(default_factory=list)
    evaluation: Evaluation
    user_tools: list[str] | None = None
    """Whitelist of user tools offered to the user seat; None = all."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Generator facts (target customer and line, catalog version) and preserved foreign fields."""

    @property
    def num_subtasks(self) -> int:
        """How many atomic subtasks the task composes (at least 1)."""
        return max(1, len(self.subtasks))

    def played_as(self, persona: str, text: str | None) -> Task:
        """The task with its customer playing the persona labelled `persona`, whose description is `text`."""
        scenario = self.user_scenario.model_copy(update={"persona_text": text})
        return self.model_copy(update={"persona": persona, "user_scenario": scenario})
