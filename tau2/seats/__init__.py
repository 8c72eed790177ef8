"""Seats played from outside an episode (a learner, a person): the episode core driven from synchronous
code, what such a seat is told, and the suites and tasks it can be given. The RL environments and
`tau2 play` are built on it."""

from tau2.seats._brief import seat_brief
from tau2.seats._driver import EpisodeDriver, Event
from tau2.seats._tasks import (
    TaskChooser,
    default_suite_name,
    domain_suites,
    find_task,
    load_tasks,
    with_persona,
)

__all__ = [
    "EpisodeDriver",
    "Event",
    "TaskChooser",
    "default_suite_name",
    "domain_suites",
    "find_task",
    "load_tasks",
    "seat_brief",
    "with_persona",
]
