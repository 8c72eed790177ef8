"""The τ²-bench task file format: models mirroring it, conversion to and from our `Task`, and loading.

τ²-bench spells the agent side `"assistant"`; we read it as `Side.AGENT` and write it back. Fields our
`Task` has no place for (description policies and notes, issues, required documents) are kept under
`Task.metadata["tau2bench"]` so they round-trip; so is whether the file left the reward basis implied.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    JsonValue,
    StrictBool,
    TypeAdapter,
    ValidationError,
    field_validator,
)

import tau2.tasks as ours
from tau2._jsonfile import collector_paused, field_path, read_json, validation_error, write_json_items
from tau2._registry import allow_reference, refuse_data_reference
from tau2.errors import UnknownDomainError, UserInputError
from tau2.tasks import (
    SUITE_FORMAT,
    RewardType,
    available_domains,
    domain_name,
    find_duplicate,
    get_domain,
    is_suite_document,
    parse_suite,
)
from tau2.world import Side

METADATA_KEY = "tau2bench"
"""Key of `Task.metadata` holding τ²-bench fields that `Task` does not model."""

BASIS_IMPLIED_KEY = "reward_basis_implied"
"""Metadata flag: the task file gave no reward basis (τ²-bench's older files), so `IMPLIED_BASIS` applies."""

ToolRequestor = Literal["user", "assistant"]

IMPLIED_BASIS = (RewardType.DB, RewardType.COMMUNICATE)
"""What a τ²-bench task without an explicit basis is judged on (the older task files)."""

_TASK_ID = re.compile(r"\[(?P<intent>[^\[\]]+)\](?P<subtasks>[^\[\]]+)\[PERSONA:(?P<persona>[^\[\]]+)\]")


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Description(_Record):
    """What a task tests; telecom sets `purpose` only."""

    purpose: str | None = None
    relevant_policies: str | None = None
    notes: str | None = None


class StructuredUserInstructions(_Record):
    """The user simulator's instructions as separate fields, tagged with the domain."""

    domain: str
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str


class UserScenario(_Record):
    """The user seat's brief: persona text and instructions (structured, or one text)."""

    persona: str | None = None
    instructions: StructuredUserInstructions | str


class InitializationData(_Record):
    """Recursive patches of each side's data, applied before the init calls."""

    agent_data: dict[str, JsonValue] | None = None
    user_data: dict[str, JsonValue] | None = None


class EnvFunctionCall(_Record):
    """A call of an env function (or tool) on one side."""

    env_type: ToolRequestor
    func_name: str
    arguments: dict[str, JsonValue]


class EnvAssertion(EnvFunctionCall):
    """An assertion call and the boolean it must return."""

    assert_value: StrictBool = True
    """Strict: `"yes"` or `1` is a mistake in the file, never read as True."""
    message: str | None = None


class InitialState(_Record):
    """How the world is set up before the conversation."""

    initialization_data: InitializationData | None = None
    initialization_actions: list[EnvFunctionCall] | None = None
    message_history: list[JsonValue] | None = None

    @field_validator("message_history")
    @classmethod
    def _reject_history(cls, history: list[JsonValue] | None) -> list[JsonValue] | None:
        if history:
            raise ValueError("a non-empty message history is not supported")
        return history


class Action(_Record):
    """A gold action: a tool call and the seat that performs it."""

    action_id: str
    requestor: ToolRequestor = "assistant"
    name: str
    arguments: dict[str, JsonValue]
    info: str | None = None
    compare_args: list[str] | None = None


class EvaluationCriteria(_Record):
    """Gold actions, stored assertions and which components gate the reward."""

    actions: list[Action] | None = None
    env_assertions: list[EnvAssertion] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardType] | None = None
    """None (absent, as in the older task files) means `IMPLIED_BASIS`."""


class TaskIssueStatus(StrEnum):
    """Where a reported task issue stands."""

    OPEN = "open"
    RESOLVED = "resolved"
    WONT_FIX = "wont_fix"


class TaskIssue(_Record):
    """A problem reported against a task; read and preserved, never interpreted."""

    id: str
    title: str
    description: str | None = None
    status: TaskIssueStatus = TaskIssueStatus.OPEN
    resolution: str | None = None
    created_at: str | None = None
    resolved_at: str | None = None
    author_email: str | None = None
    pr_link: str | None = None
    simulation_file: str | None = None


class Tau2Task(_Record):
    """One task as τ²-bench writes it."""

    id: ours.TaskId
    description: Description | None = None
    user_scenario: UserScenario
    ticket: str | None = None
    initial_state: InitialState | None = None
    evaluation_criteria: EvaluationCriteria | None = None
    issues: list[TaskIssue] | None = None
    required_documents: list[str] | None = None
    user_tools: list[str] | None = None


_TASK_LIST = TypeAdapter(list[Tau2Task])
_OPTIONAL_TOP_LEVEL = ("issues", "required_documents", "user_tools")


def parse_task_id(task_id: str) -> tuple[str | None, list[str], str | None]:
    """Intent, subtasks and persona label of an ID `[<intent>]<sub1>|<sub2>[PERSONA:<label>]`."""
    match = _TASK_ID.fullmatch(task_id)
    if match is None:
        return None, [], None
    return match["intent"], match["subtasks"].split("|"), match["persona"]


def default_reward_basis(expects_transfer: bool) -> list[RewardType]:
    """The reward basis our evaluation implies: assertions, plus the transfer action when one is expected."""
    if expects_transfer:
        return [RewardType.ENV_ASSERTION, RewardType.ACTION]
    return [RewardType.ENV_ASSERTION]


def task_from_tau2(task: Tau2Task, domain_name: str) -> ours.Task:
    """Convert a τ²-bench task of domain `domain_name` (whose pack must be installed) to our `Task`."""
    transfer_tool = get_domain(domain_name).transfer_tool
    state = task.initial_state or InitialState()
    criteria = task.evaluation_criteria or EvaluationCriteria()
    solution = [
        ours.SolutionStep(
            side=_side(action.requestor),
            name=action.name,
            arguments=action.arguments,
            action_id=action.action_id,
            compare_args=action.compare_args,
            info=action.info,
        )
        for action in criteria.actions or []
    ]
    expects_transfer = transfer_tool is not None and any(step.name == transfer_tool for step in solution)
    basis = list(IMPLIED_BASIS) if criteria.reward_basis is None else criteria.reward_basis
    intent, subtasks, persona = parse_task_id(task.id)
    data = state.initialization_data
    return ours.Task(
        id=task.id,
        domain=domain_name,
        intent=intent,
        subtasks=subtasks,
        persona=persona,
        purpose=task.description.purpose if task.description else None,
        user_scenario=ours.UserScenario(
            instructions=_instructions_from_tau2(task.user_scenario.instructions),
            persona_text=task.user_scenario.persona,
        ),
        ticket=task.ticket,
        initial_data=ours.InitialData(agent_data=data.agent_data, user_data=data.user_data) if data else None,
        initialization=[
            ours.EnvCall(side=_side(call.env_type), name=call.func_name, arguments=call.arguments)
            for call in state.initialization_actions or []
        ],
        evaluation=ours.Evaluation(
            assertions=[
                ours.AssertionCall(
                    side=_side(check.env_type),
                    name=check.func_name,
                    arguments=check.arguments,
                    expected=check.assert_value,
                    message=check.message,
                )
                for check in criteria.env_assertions or []
            ],
            solution=solution,
            expects_transfer=expects_transfer,
            reward_basis=None if basis == default_reward_basis(expects_transfer) else basis,
            communicate_info=criteria.communicate_info,
            nl_assertions=criteria.nl_assertions,
        ),
        user_tools=task.user_tools,
        metadata=_preserved_fields(task, criteria.reward_basis is None),
    )


def task_to_tau2(task: ours.Task) -> dict[str, Any]:
    """Our `Task` as a τ²-bench task object (only the fields of the format, agent side as "assistant")."""
    kept: dict[str, Any] = _as_dict(task.metadata.get(METADATA_KEY))
    evaluation = task.evaluation
    data = task.initial_data
    record = Tau2Task(
        id=task.id,
        description=Description(
            purpose=task.purpose, relevant_policies=kept.get("relevant_policies"), notes=kept.get("notes")
        ),
        user_scenario=UserScenario(
            persona=task.user_scenario.persona_text,
            instructions=_instructions_to_tau2(task.user_scenario.instructions, task.domain),
        ),
        ticket=task.ticket,
        initial_state=InitialState(
            initialization_data=(
                InitializationData(agent_data=data.agent_data, user_data=data.user_data) if data else None
            ),
            initialization_actions=[
                EnvFunctionCall(env_type=_requestor(call.side), func_name=call.name, arguments=call.arguments)
                for call in task.initialization
            ]
            or None,
        ),
        evaluation_criteria=EvaluationCriteria(
            actions=[
                Action(
                    action_id=step.action_id,
                    requestor=_requestor(step.side),
                    name=step.name,
                    arguments=step.arguments,
                    info=step.info,
                    compare_args=step.compare_args,
                )
                for step in evaluation.solution
            ]
            or None,
            env_assertions=[
                EnvAssertion(
                    env_type=_requestor(check.side),
                    func_name=check.name,
                    arguments=check.arguments,
                    assert_value=check.expected,
                    message=check.message,
                )
                for check in evaluation.assertions
            ]
            or None,
            communicate_info=evaluation.communicate_info,
            nl_assertions=evaluation.nl_assertions,
            reward_basis=(
                default_reward_basis(evaluation.expects_transfer)
                if evaluation.reward_basis is None
                else evaluation.reward_basis
            ),
        ),
        issues=kept.get("issues"),
        required_documents=kept.get("required_documents"),
        user_tools=task.user_tools,
    )
    absent = {name for name in _OPTIONAL_TOP_LEVEL if getattr(record, name) is None}
    return record.model_dump(mode="json", exclude=absent)


def write_tau2_file(path: Path, tasks: Iterable[ours.Task]) -> None:
    """Write tasks as a τ²-bench task file (a JSON array), canonically formatted, one task at a time as
    `tasks` yields them."""
    write_json_items(path, map(task_to_tau2, tasks))


TASK_FILES = "task_*.json"
"""The files of a τ²-bench task folder (one task object each), read in name order as τ²-bench reads them."""


def load_task_file(path: Path, domain: str | None = None, *, data_dir: Path | None = None) -> list[ours.Task]:
    """Read our suite file, a τ²-bench task file (array, or object with `tasks`), or a τ²-bench task
    folder (`task_*.json`, one task each), telling them apart.

    `domain` overrides the domain a τ²-bench task names in its instructions; for a suite it must be the
    suite's domain, or a `module:attribute` reference to it, which its tasks then name (so that every
    process running them finds the domain). `domain` is the caller's (the user's): a reference it gives
    may be imported, and the file may name it too; any other reference a file names is refused, as reading
    data never imports code. A τ²-bench task whose instructions are text names no domain: without
    `domain`, it is the domain whose data directory `data_dir` is (`domain_of_data`). Every error is one
    line naming the file and the field.
    """
    if domain is not None:
        allow_reference(domain)
    default = _DataDomain(data_dir)
    with collector_paused():
        return _load_task_file(path, domain, default)


class _DataDomain:
    """The domain of a data directory, worked out once and only when a task needs it."""

    def __init__(self, data_dir: Path | None) -> None:
        self._data_dir = data_dir
        self._found: tuple[str | None] | None = None

    def __call__(self) -> str | None:
        if self._data_dir is None:
            return None
        if self._found is None:
            self._found = (domain_of_data(self._data_dir),)
        return self._found[0]


def domain_of_data(data_dir: Path) -> str | None:
    """The domain whose data directory `data_dir` is: the one available domain that reads its state from
    a data directory's files (an empty directory fails it) and reads this one; None when none or several
    do."""
    with tempfile.TemporaryDirectory() as empty:
        readers = [
            name for name in available_domains() if _reads(name, data_dir) and not _reads(name, Path(empty))
        ]
    return readers[0] if len(readers) == 1 else None


def _reads(name: str, data_dir: Path) -> bool:
    try:
        get_domain(name).load_state(data_dir)
    except Exception:  # any domain, a plugin's too, that cannot read the directory is not its domain
        return False
    return True


def _load_task_file(path: Path, domain: str | None, default: Callable[[], str | None]) -> list[ours.Task]:
    if path.is_dir():
        return _tasks_from_folder(path, domain, default)
    data = read_json(path)
    if is_suite_document(data):
        suite = parse_suite(data, path)
        if domain is None or domain == suite.domain:
            return suite.tasks
        if domain_name(domain) != domain_name(suite.domain):
            raise UserInputError(f"{path}: domain: the suite is for {suite.domain!r}, not {domain!r}")
        return [task.model_copy(update={"domain": domain}) for task in suite.tasks]
    if isinstance(data, dict) and "tasks" in data:
        return _tasks_from_tau2(path, data["tasks"], ("tasks",), domain, default)
    if isinstance(data, list):
        return _tasks_from_tau2(path, data, (), domain, default)
    raise UserInputError(
        f"{path}: expected a JSON array of tasks, an object with key 'tasks', or a {SUITE_FORMAT!r} suite"
    )


SPLITS_FILE = "split_tasks.json"
"""The file beside a τ²-bench task file that names task-id lists (`base`, `train`, `test`)."""
_SPLITS = TypeAdapter(dict[str, list[str]])


def load_split(task_file: Path, name: str) -> list[str]:
    """The task ids of split `name` in the `split_tasks.json` beside `task_file`."""
    path = task_file.parent / SPLITS_FILE
    try:
        splits = _SPLITS.validate_python(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None
    if name not in splits:
        raise UserInputError(f"{path}: no split {name!r} (available: {', '.join(splits) or 'none'})")
    return splits[name]


def _tasks_from_tau2(
    path: Path, items: Any, prefix: tuple[str, ...], domain: str | None, default: Callable[[], str | None]
) -> list[ours.Task]:
    """Validate and convert a τ²-bench task list found at `prefix` in the file."""
    try:
        records = _TASK_LIST.validate_python(items)
    except ValidationError as error:
        raise validation_error(path, error, prefix) from None
    if isinstance(items, list):
        items.clear()  # the parsed JSON is validated: let it go before converting (a lower peak of memory)
    duplicate = find_duplicate([record.id for record in records])
    if duplicate is not None:
        first, second = duplicate
        where = field_path([*prefix, second, "id"])
        raise UserInputError(f"{path}: {where}: duplicate task id {records[second].id!r} (also at [{first}])")
    return _converted(records, lambda index: (path, [*prefix, index]), domain, default)


def task_folder_files(folder: Path) -> list[Path]:
    """The files that make up a τ²-bench task folder (`task_*.json` directly in it), in name order: what is
    read and hashed of it, nothing else below it. A folder without any is refused: it is no task folder."""
    files = sorted(folder.glob(TASK_FILES))
    if not files:
        raise UserInputError(f"{folder}: no task files ({TASK_FILES}) in the folder")
    return files


def _tasks_from_folder(
    folder: Path, domain: str | None, default: Callable[[], str | None]
) -> list[ours.Task]:
    """Validate and convert every task file of a τ²-bench task folder, in file name order."""
    files = task_folder_files(folder)
    records = []
    for file in files:
        try:
            records.append(Tau2Task.model_validate(read_json(file)))
        except ValidationError as error:
            raise validation_error(file, error) from None
    duplicate = find_duplicate([record.id for record in records])
    if duplicate is not None:
        first, second = duplicate
        raise UserInputError(
            f"{files[second]}: id: duplicate task id {records[second].id!r} (also in {files[first].name})"
        )
    return _converted(records, lambda index: (files[index], []), domain, default)


def _converted(
    records: list[Tau2Task],
    locate: Callable[[int], tuple[Path, list[str | int]]],
    domain: str | None,
    default: Callable[[], str | None],
) -> list[ours.Task]:
    """Our tasks from validated τ²-bench records; `locate` gives a record's file and field path, `default`
    the domain of a task whose instructions name none."""
    tasks = []
    for index, record in enumerate(records):
        path, prefix = locate(index)
        instructions = record.user_scenario.instructions
        if domain is not None:
            name = domain
        elif isinstance(instructions, StructuredUserInstructions):
            name = instructions.domain
            where = field_path([*prefix, "user_scenario", "instructions", "domain"])
            refuse_data_reference(name, "domain", f"{path}: {where}")
        elif (inferred := default()) is not None:
            name = inferred
        else:
            where = field_path([*prefix, "user_scenario", "instructions"])
            raise UserInputError(
                f"{path}: {where}: text instructions do not name a domain; give it explicitly (--domain), "
                "or the domain's data directory (--data-dir)"
            )
        try:
            tasks.append(task_from_tau2(record, name))
        except UnknownDomainError as error:
            if domain is not None:
                raise
            where = field_path([*prefix, "user_scenario", "instructions", "domain"])
            raise UserInputError(f"{path}: {where}: {error}") from None
    return tasks


def _preserved_fields(task: Tau2Task, basis_implied: bool) -> dict[str, JsonValue]:
    """The τ²-bench fields `Task` does not model, under `METADATA_KEY` (nothing when all are unset), and
    whether the reward basis was implied (an older task file) rather than written out."""
    description = task.description or Description()
    kept: dict[str, Any] = {
        "relevant_policies": description.relevant_policies,
        "notes": description.notes,
        "issues": [issue.model_dump(mode="json") for issue in task.issues]
        if task.issues is not None
        else None,
        "required_documents": task.required_documents,
        BASIS_IMPLIED_KEY: True if basis_implied else None,
    }
    present = {key: value for key, value in kept.items() if value is not None}
    return {METADATA_KEY: present} if present else {}


def _instructions_from_tau2(instructions: StructuredUserInstructions | str) -> ours.UserInstructions | str:
    if isinstance(instructions, str):
        return instructions
    return ours.UserInstructions(
        reason_for_call=instructions.reason_for_call,
        known_info=instructions.known_info,
        unknown_info=instructions.unknown_info,
        task_instructions=instructions.task_instructions,
    )


def _instructions_to_tau2(
    instructions: ours.UserInstructions | str, domain: str
) -> StructuredUserInstructions | str:
    if isinstance(instructions, str):
        return instructions
    return StructuredUserInstructions(
        domain=domain,
        reason_for_call=instructions.reason_for_call,
        known_info=instructions.known_info,
        unknown_info=instructions.unknown_info,
        task_instructions=instructions.task_instructions,
    )


def _as_dict(value: JsonValue | None) -> dict[str, JsonValue]:
    return value if isinstance(value, dict) else {}


def _side(requestor: ToolRequestor) -> Side:
    return Side.AGENT if requestor == "assistant" else Side.USER


def _requestor(side: Side) -> ToolRequestor:
    return "assistant" if side is Side.AGENT else "user"
