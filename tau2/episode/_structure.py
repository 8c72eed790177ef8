"""The static half of task verification: every function a task's evaluation names exists on its side and
accepts the arguments the task gives it.

It reads only the domain's tool table (no world is built), so `tau2 run` can check every task of a large
suite before the first simulation, and refuse a task whose evaluation could never pass instead of scoring
it as the agent's failure.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from tau2.errors import UserInputError
from tau2.tasks import EnvCall, Task, get_domain
from tau2.world import Tool, ToolTable


class TaskStructureError(UserInputError):
    """A task whose evaluation names a function or an argument its domain does not have."""

    def __init__(self, task_id: str, field: str, reason: str) -> None:
        super().__init__(f"task {task_id!r}: {field}: {reason}")
        self.task_id = task_id
        self.field = field
        self.reason = reason


def structure_problem(task: Task) -> tuple[str, str] | None:
    """(field path, reason) of the first structural problem of `task`'s evaluation, or None when sound."""
    table = get_domain(task.domain).tools
    evaluation = task.evaluation
    for index, step in enumerate(evaluation.solution):
        field = f"evaluation.solution[{index}]"
        tool = table.tool(step.name)
        if tool is None or tool.side is not step.side:
            return field, f"no {step.side.value} tool named {step.name!r}"
        problem = _argument_problem(tool, step.arguments)
        if problem is not None:
            return f"{field}.arguments", problem
    for index, assertion in enumerate(evaluation.assertions):
        found = _call_problem(table, assertion)
        if found is not None:
            return f"evaluation.assertions[{index}]{found[0]}", found[1]
    return None


def check_structure(tasks: list[Task]) -> None:
    """Raise `TaskStructureError` for the first task whose evaluation is structurally broken."""
    for task in tasks:
        problem = structure_problem(task)
        if problem is not None:
            raise TaskStructureError(task.id, *problem)


def _call_problem(table: ToolTable, call: EnvCall) -> tuple[str, str] | None:
    """('' or '.arguments', reason) when an env-function call names an unknown function or bad arguments."""
    function = table.env_function(call.side, call.name)
    if function is None:
        return "", f"no {call.side.value} env function named {call.name!r}"
    problem = _argument_problem(function, call.arguments)
    return None if problem is None else (".arguments", problem)


def _argument_problem(function: Tool, arguments: Mapping[str, object]) -> str | None:
    """Why `arguments` do not fit `function`'s parameters (unknown or missing names, wrong types), or None."""
    try:
        function.arguments_model.model_validate(dict(arguments))
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        name = ".".join(str(part) for part in detail["loc"]) or "arguments"
        return f"{function.name}: {name}: {detail['msg']}"
    return None
