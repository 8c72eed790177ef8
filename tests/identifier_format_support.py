"""Shared checks of the identifier-renaming tests: a task renamed for one simulation keeps its reference's
reward of 1.0 and no original identifier survives in its data or texts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tau2.rebrand import RenamedStart, Renaming, SurvivorSearch, rename_identifiers
from tau2.rebrand.check import replay_reward, replay_start_reward
from tau2.tasks import Task, get_domain
from tau2.tau2bench import load_task_file


def shipped_tasks(domain: str) -> list[Task]:
    """The tasks of the domain's default suite."""
    suite = get_domain(domain).default_suite
    assert suite is not None
    return load_task_file(suite, domain)


def assert_original_solved(task: Task, source: Path | None) -> None:
    """The original reference replays to reward 1.0 on the original data."""
    info = task.evaluation.communicate_info or []
    assert replay_reward(task, task.evaluation.solution, info, source) == 1.0, task.id


def assert_renamed(task: Task, seeds: Iterable[int], source: Path | None) -> None:
    """`task` renamed with each of `seeds` on the data of `source`: its renamed reference replays to 1.0
    (as the original does), the replay found no difference, and no original identifier survives in the
    renamed world or task."""
    assert_original_solved(task, source)
    for seed in seeds:
        start = renamed_start(task, seed, source)
        assert survivors_in_data(start) + survivors_in_task(start) == [], (task.id, seed)


def renamed_start(task: Task, seed: int, source: Path | None) -> RenamedStart:
    """`task` renamed with `seed`, after checking the replay found no difference and the renamed reference
    replays to reward 1.0 on the renamed world."""
    start = rename_identifiers(task, seed, source)
    assert start.problems == (), (task.id, seed, start.problems)
    renamed = start.task
    info = renamed.evaluation.communicate_info or []
    assert replay_start_reward(start, renamed.evaluation.solution, info) == 1.0, (task.id, seed)
    return start


_LAST_SEARCH: list[tuple[Renaming, SurvivorSearch]] = []
"""The search for the last renaming searched (the tasks of a seed that write nothing share their renaming)."""


def _search(start: RenamedStart) -> SurvivorSearch:
    renaming = start.renaming
    if _LAST_SEARCH and _LAST_SEARCH[0][0] is renaming:
        return _LAST_SEARCH[0][1]
    search = SurvivorSearch(renaming.kinds, renaming.identifiers, renaming.protected)
    _LAST_SEARCH[:] = [(renaming, search)]
    return search


def survivors_in_data(start: RenamedStart) -> list[str]:
    """Original identifiers in the renamed task's starting world."""
    return list(_search(start).in_document(json.loads(start.world().snapshot())))


def survivors_in_task(start: RenamedStart) -> list[str]:
    """Original identifiers in the renamed task: its data patches, calls, brief and expected outputs."""
    search = _search(start)
    renamed = start.task
    evaluation = renamed.evaluation
    calls = [*evaluation.solution, *evaluation.assertions, *renamed.initialization]
    documents: list[Any] = [call.arguments for call in calls]
    if renamed.initial_data is not None:
        documents += [renamed.initial_data.agent_data or {}, renamed.initial_data.user_data or {}]
    found = [survivor for document in documents for survivor in search.in_document(document)]
    texts = [
        renamed.user_scenario.text(),
        renamed.ticket or "",
        *(evaluation.communicate_info or []),
        *(evaluation.nl_assertions or []),
    ]
    return found + [survivor for text in texts for survivor in search.in_text(text)]
