"""Where a seat played from outside finds its tasks: a domain's suites (its default suite and the suite
files beside it), a suite file given by path, and an optional persona applied to a task."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tau2.errors import UserInputError
from tau2.personas import PersonaError, load_persona
from tau2.tasks import Task, get_domain
from tau2.tau2bench import load_task_file

if TYPE_CHECKING:
    import numpy as np


SUITES_FOLDER = "suites"
"""A pack's folder of suite files; a default suite elsewhere (beside data files) is offered alone."""


def domain_suites(domain: str) -> dict[str, Path]:
    """The suites a domain ships, by name: its default suite, and the other suite files of its `suites`
    folder."""
    default = get_domain(domain).default_suite
    if default is None:
        return {}
    suites = {default.stem: default}
    if default.parent.name == SUITES_FOLDER:
        suites.update({path.stem: path for path in sorted(default.parent.glob("*.json"))})
    return suites


def default_suite_name(domain: str) -> str | None:
    """The name of the domain's default suite, or None when it has none."""
    default = get_domain(domain).default_suite
    return None if default is None else Path(default).stem


def load_tasks(domain: str, suite: str | Path | None = None) -> list[Task]:
    """The tasks of `suite` (a suite name of the domain or a file path; None: the domain's default)."""
    suites = domain_suites(domain)
    if suite is None:
        name = default_suite_name(domain)
        if name is None:
            raise UserInputError(f"domain {domain!r} has no default suite; give a suite file")
        path = suites[name]
    elif str(suite) in suites:
        path = suites[str(suite)]
    else:
        path = Path(suite)
        if not path.is_file():
            known = ", ".join(suites) or "none"
            raise UserInputError(
                f"suite {str(suite)!r}: no such file or suite of {domain!r} (suites: {known})"
            )
    tasks = load_task_file(path, domain)
    if not tasks:
        raise UserInputError(f"{path}: the suite has no tasks")
    return tasks


def find_task(tasks: list[Task], task_id: str) -> Task:
    """The task called `task_id`; an unknown id is a `UserInputError`."""
    for task in tasks:
        if task.id == task_id:
            return task
    raise UserInputError(f"no task with id {task_id!r} in the suite ({len(tasks)} tasks)")


def with_persona(task: Task, persona: str | None) -> Task:
    """`task` with the user seat playing the named (or file) persona; unchanged when `persona` is None."""
    if persona is None:
        return task
    try:
        loaded = load_persona(persona)
    except PersonaError as error:
        raise UserInputError(f"persona: {error}") from None
    return task.played_as(loaded.label, loaded.prompt_text)


class TaskChooser:
    """Chooses each episode's task for an environment: a named task, or one drawn with the environment's
    seeded generator from the chosen suite; suites are loaded once."""

    OPTIONS = frozenset({"suite", "task_id", "persona"})
    """The `reset` options it understands; an accepted option stays in force for later resets."""

    def __init__(
        self, domain: str, suite: str | Path | None, task_id: str | None, persona: str | None
    ) -> None:
        if suite is None and default_suite_name(domain) is None:  # refused now, not at the first reset
            raise UserInputError(f"domain {domain!r} has no default suite; give a suite")
        self.domain = domain
        self._settings: dict[str, Any] = {"suite": suite, "task_id": task_id, "persona": persona}
        self._suites: dict[str | Path | None, list[Task]] = {}

    def choose(self, rng: np.random.Generator, options: dict[str, Any]) -> Task:
        """The next episode's task under the current settings with `options` applied, persona included;
        the options are not kept (see `keep`), so one that is refused changes nothing."""
        settings = self._with(options)
        suite = settings["suite"]
        if suite not in self._suites:
            self._suites[suite] = load_tasks(self.domain, suite)
        tasks = self._suites[suite]
        task_id = settings["task_id"]
        task = find_task(tasks, task_id) if task_id is not None else tasks[int(rng.integers(len(tasks)))]
        return with_persona(task, settings["persona"])

    def keep(self, options: dict[str, Any]) -> None:
        """Keep `options` in force for later episodes: called once the episode they chose has started."""
        self._settings = self._with(options)

    def _with(self, options: dict[str, Any]) -> dict[str, Any]:
        """The settings with the understood `options` applied; an option that is not text is refused."""
        given = {key: options[key] for key in sorted(self.OPTIONS & set(options))}
        for key, value in given.items():
            kinds = (str, Path) if key == "suite" else (str,)
            if value is not None and not isinstance(value, kinds):
                raise UserInputError(f"reset option {key}: expected text, not {type(value).__name__}")
        return self._settings | given
