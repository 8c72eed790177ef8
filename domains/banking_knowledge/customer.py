"""The customer a banking task's user plays, as the bank's database holds them (for `tau2 lint`)."""

from __future__ import annotations

from tau2.tasks import Task
from tau2.world import CustomerRecord, World

from ..tau_common.customer import parse_date, speaker_id
from .records import TODAY
from .state import BankDB


def customer_record(world: World, task: Task) -> CustomerRecord | None:
    """The user whose id (or, failing that, full name) the task's texts give."""
    state = world.state
    if not isinstance(state, BankDB):
        raise TypeError(f"the banking domain needs a bank database, not {type(state).__name__}")
    users = state.users.data
    names = {key: str(user.get("name") or "") for key, user in users.items()}
    key = speaker_id(task.user_scenario.text(), names)
    if key is None:
        return None
    user = users[key]
    born = user.get("date_of_birth")
    phone, email = user.get("phone_number"), user.get("email")
    return CustomerRecord(
        names=(names[key],) if names[key] else (),
        date_of_birth=parse_date(born) if isinstance(born, str) else None,
        today=parse_date(TODAY),
        phone_numbers=(phone,) if isinstance(phone, str) else (),
        emails=(email,) if isinstance(email, str) else (),
    )
