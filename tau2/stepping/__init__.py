"""Episodes stepped from outside, one turn at a time, for the seats a learner or a person plays: the
episode core stepped from synchronous code (`EpisodeStepper`), what such a seat is told, and the suites
and tasks it can be given. The RL environments and `tau2 play` are built on it."""

from tau2.stepping._brief import seat_brief
from tau2.stepping._stepper import EpisodeStepper, Event
from tau2.stepping._tasks import (
    TaskChooser,
    default_suite_name,
    domain_suites,
    find_task,
    load_tasks,
    with_persona,
)

__all__ = [
    "EpisodeStepper",
    "Event",
    "TaskChooser",
    "default_suite_name",
    "domain_suites",
    "find_task",
    "load_tasks",
    "seat_brief",
    "with_persona",
]
