"""The customer an airline task's user plays, as the database holds them (for `tau2 lint`)."""

from __future__ import annotations

from datetime import datetime

from tau2.tasks import Task
from tau2.world import CustomerRecord, World

from ..tau_common.customer import parse_date, speaker_id
from .state import FlightDB
from .tools import NOW

TODAY = datetime.fromisoformat(NOW).date()


def customer_record(world: World, task: Task) -> CustomerRecord | None:
    """The user whose id (or, failing that, full name) the task's texts give."""
    state = world.state
    if not isinstance(state, FlightDB):
        raise TypeError(f"the airline domain needs a flight database, not {type(state).__name__}")
    names = {key: f"{user.name.first_name} {user.name.last_name}" for key, user in state.users.items()}
    key = speaker_id(task.user_scenario.text(), names)
    if key is None:
        return None
    user = state.users[key]
    return CustomerRecord(
        names=(names[key],), date_of_birth=parse_date(user.dob), today=TODAY, emails=(user.email,)
    )
