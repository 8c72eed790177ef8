"""Building a task's starting world: fresh domain data, the task's data patches, then its init calls."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from tau2.errors import UserInputError
from tau2.tasks._domain import get_domain
from tau2.tasks._task import Task
from tau2.world import RetrievalConfig, World


class TaskSetupError(UserInputError):
    """A task's initialisation could not be applied; `reason` says which step failed and why."""

    def __init__(self, task_id: str, reason: str) -> None:
        super().__init__(f"task {task_id!r}: {reason}")
        self.task_id = task_id
        self.reason = reason


def initialize_world(
    task: Task,
    data_dir: Path | None = None,
    *,
    retrieval: RetrievalConfig | None = None,
    base: BaseModel | None = None,
) -> World:
    """A fresh world of the task's domain with its initial data patches, the settings the task implies and
    its init calls applied in order; with `retrieval`, the world offers that configuration's tools. With
    `base`, the world starts from a copy of that loaded state (a renamed database) instead of `data_dir`'s
    data (`data_dir` still gives the knowledge base)."""
    domain = get_domain(task.domain)
    world = World.create(domain, data_dir, base=base)
    patches = task.initial_data
    if patches is not None and (patches.agent_data is not None or patches.user_data is not None):
        if domain.patch_state is None:
            raise TaskSetupError(task.id, f"domain {domain.name!r} does not support initial data patches")
        try:
            state = domain.patch_state(world.state, patches.agent_data, patches.user_data)
        except ValueError as error:
            raise TaskSetupError(task.id, f"initial data: {' '.join(str(error).split())}") from None
        world = World(domain, state)
    if domain.prepare_task is not None:
        domain.prepare_task(world.state, task)
    if retrieval is not None:
        if domain.retrieval is None:
            raise UserInputError(
                f"domain {domain.name!r} has no knowledge base: no retrieval configuration applies"
            )
        world = World(domain.retrieval.configure(retrieval, data_dir), world.state)
    total = len(task.initialization)
    for number, call in enumerate(task.initialization, start=1):
        result = world.run_env_function(call.side, call.name, call.arguments)
        if result.error is not None:
            raise TaskSetupError(
                task.id,
                f"init call {number} of {total} failed: {call.describe()}: "
                f"{result.error.code.value}: {result.error.message}",
            )
    return world
