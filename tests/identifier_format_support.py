"""Shared checks of the identifier-renaming tests: a task renamed for one simulation keeps its reference's
reward of 1.0 and no original identifier survives in its data or texts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tau2.rebrand import SurvivorSearch, rename_identifiers
from tau2.rebrand.check import replay_reward, replay_start_reward
from tau2.tasks import Task
from tau2.tau2bench import load_task_file
from tau2.world import get_domain


def shipped_tasks(domain: str) -> list[Task]:
    """The tasks of the domain's default suite."""
    suite = get_domain(domain).default_suite
    assert suite is not None
    return load_task_file(suite, domain)


def assert_renamed(task: Task, seeds: Iterable[int], source: Path | None) -> None:
    """`task` renamed with each of `seeds` on the data of `source`: its renamed reference replays to 1.0
    (as the original does), the replay found no difference, and no original identifier survives."""
    info = task.evaluation.communicate_info or []
    assert replay_reward(task, task.evaluation.solution, info, source) == 1.0, task.id
    for seed in seeds:
        _assert_renamed_once(task, seed, source)


def _assert_renamed_once(task: Task, seed: int, source: Path | None) -> None:
    start = rename_identifiers(task, seed, source)
    assert start.problems == (), (task.id, seed, start.problems)
    renamed = start.task
    reward = replay_start_reward(
        start, renamed.evaluation.solution, renamed.evaluation.communicate_info or []
    )
    assert reward == 1.0, (task.id, seed)
    renaming = start.renaming
    search = SurvivorSearch(renaming.kinds, renaming.identifiers, renaming.protected)
    world = start.world()
    survivors = list(search.in_document(json.loads(world.snapshot())))
    evaluation = renamed.evaluation
    documents = [
        call.arguments for call in [*evaluation.solution, *evaluation.assertions, *renamed.initialization]
    ]
    for document in documents:
        survivors += search.in_document(document)
    texts = [
        renamed.user_scenario.text(),
        renamed.ticket or "",
        *(evaluation.communicate_info or []),
        *(evaluation.nl_assertions or []),
    ]
    for text in texts:
        survivors += search.in_text(text)
    assert survivors == [], (task.id, seed, survivors[:5])
