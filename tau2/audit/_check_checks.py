"""The contract checks of new lint and simulated-user checks, in the spirit of `check_domain`: each runs the
check on real inputs (a domain's own tasks; trajectories the offline seats play on them) and returns one
line per broken promise: an exception, an answer that is neither None nor a line of text, an answer that
changes when asked again, or an input the check changed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tau2.actors import make_actor
from tau2.episode import ActorSpec, EpisodeConfig, Trajectory, run_episode
from tau2.findings import AuditedTrajectory, LintCheck, LintedTask, SeatTools, UserCheck
from tau2.tasks import Domain, Task, TaskSetupError, get_domain, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import Side, World, state_digest

Input = TypeVar("Input")

DEFAULT_DOMAIN = "mock"
"""The domain whose default suite the checks are tried on when no other is given."""


def check_lint_check(
    check: LintCheck, domain: str = DEFAULT_DOMAIN, data_dir: Path | None = None
) -> list[str]:
    """Problems of a lint check, one line each; empty when it keeps its contract on every task of
    `domain`'s default suite (set up on `data_dir`, None: the domain's own data)."""
    problems = []
    for task in _suite(get_domain(domain), data_dir):
        try:
            world = initialize_world(task, data_dir)
        except TaskSetupError:
            continue  # lint reports it as setup_fails; no check runs on such a task
        before = (task.model_dump_json(), state_digest(world.state))

        def changed(task: Task = task, world: World = world, before: tuple[str, str] = before) -> str | None:
            unchanged = (task.model_dump_json(), state_digest(world.state)) == before
            return None if unchanged else "changed the task or its world, which every check shares"

        problem = _answers(
            check.find, LintedTask(task, world, data_dir), LintedTask(task, world, data_dir), changed
        )
        if problem is not None:
            problems.append(f"lint check {check.name!r} on task {task.id!r}: {problem}")
    return problems


def check_user_check(
    check: UserCheck,
    domain: str = DEFAULT_DOMAIN,
    trajectories: Sequence[tuple[Trajectory, Task]] | None = None,
) -> list[str]:
    """Problems of a simulated-user check, one line each; empty when it keeps its contract on every
    trajectory, with its task and (unless the check needs it) without: `trajectories` of `domain`'s tasks,
    by default those the offline seats play on its default suite (the oracle agent, and the null agent that
    never helps, each with the scripted user)."""
    pack = get_domain(domain)
    played = list(trajectories) if trajectories is not None else _played(pack)
    problems = []
    for trajectory, task in played:
        tools = SeatTools.of(pack, task)
        for given in (task, None) if not check.needs_task else (task,):
            before = trajectory.model_dump_json()

            def changed(trajectory: Trajectory = trajectory, before: str = before) -> str | None:
                return None if trajectory.model_dump_json() == before else "changed the trajectory"

            audited = AuditedTrajectory(trajectory, tools, given)
            problem = _answers(check.find, audited, audited, changed)
            if problem is not None:
                without = "" if given is not None else " without its task"
                problems.append(f"user check {check.name!r} on task {task.id!r}{without}: {problem}")
    return problems


def _answers(
    find: Callable[[Input], object], first: Input, again: Input, changed: Callable[[], str | None]
) -> str | None:
    """What is wrong with a check's answer (None when nothing): it raised, it changed what it read
    (`changed` says how), it is neither None nor a non-empty line of text, or asking again (`again`: the
    same input afresh) answers otherwise."""
    try:
        answer = find(first)
        change = changed()
        repeated = find(again)
    except Exception as error:  # the check reports, it never raises
        return f"raised {type(error).__name__}: {error}"
    if change is not None:
        return change
    if answer is not None and (not isinstance(answer, str) or not answer.strip()):
        return f"answered {answer!r}: a check answers None or a line of detail"
    if repeated != answer:
        return f"answered {answer!r}, then {repeated!r}: a check answers the same every time"
    return None


def _suite(domain: Domain[Any], data_dir: Path | None) -> list[Task]:
    """The tasks of the domain's default suite (none when it has none)."""
    if domain.default_suite is None:
        return []
    return load_task_file(domain.default_suite, domain.name, data_dir=data_dir)


def _played(domain: Domain[Any]) -> list[tuple[Trajectory, Task]]:
    """The trajectories the offline seats play on the domain's default suite: the oracle agent and the null
    agent, each with the scripted user."""

    async def play() -> list[tuple[Trajectory, Task]]:
        played = []
        for task in _suite(domain, None):
            for agent in ("oracle", "null"):
                seats = (
                    make_actor(ActorSpec(kind=agent), Side.AGENT),
                    make_actor(ActorSpec(kind="scripted"), Side.USER),
                )
                result = await run_episode(task, *seats, EpisodeConfig(max_steps=30))
                played.append((result.trajectory, task))
        return played

    return asyncio.run(play())
