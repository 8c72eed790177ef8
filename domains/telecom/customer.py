"""The customer a telecom task's user plays: the owner, in the CRM, of the number the phone is bound to
(for `tau2 lint`)."""

from __future__ import annotations

import datetime as dt

from tau2.domains.telecom.clock import TODAY
from tau2.domains.telecom.lookup import customer_for_number
from tau2.domains.telecom.state import TelecomState
from tau2.tasks import Task
from tau2.world import CustomerRecord, World


def customer_record(world: World, task: Task) -> CustomerRecord | None:
    """The CRM customer of the phone's number after initialisation, with every number they hold."""
    state = world.state
    if not isinstance(state, TelecomState):
        raise TypeError(f"the telecom domain needs a telecom world, not {type(state).__name__}")
    number = state.surroundings.phone_number
    customer = None if number is None else customer_for_number(state.crm, number)
    if customer is None:
        return None
    lines = [line.phone_number for line in state.crm.lines if line.line_id in customer.line_ids]
    try:
        born: dt.date | None = dt.date.fromisoformat(customer.date_of_birth)
    except ValueError:
        born = None
    return CustomerRecord(
        names=(customer.full_name,),
        date_of_birth=born,
        today=TODAY,
        phone_numbers=tuple(dict.fromkeys([customer.phone_number, *lines])),
        emails=(customer.email,),
    )
