"""The customer a retail task's user plays, as the database holds them (for `tau2 lint`)."""

from __future__ import annotations

from tau2.tasks import Task
from tau2.world import CustomerRecord, World

from ..tau_common.customer import speaker_id
from .state import RetailDB


def customer_record(world: World, task: Task) -> CustomerRecord | None:
    """The user whose id (or, failing that, full name) the task's texts give; the records hold no dates
    of birth or phone numbers, so names and emails are what can be compared."""
    state = world.state
    if not isinstance(state, RetailDB):
        raise TypeError(f"the retail domain needs a retail database, not {type(state).__name__}")
    names = {key: f"{user.name.first_name} {user.name.last_name}" for key, user in state.users.items()}
    key = speaker_id(task.user_scenario.text(), names)
    if key is None:
        return None
    return CustomerRecord(names=(names[key],), emails=(state.users[key].email,))
