"""IDs and phone numbers that no record of the data uses, for the records a task adds (another line,
another customer, a further bill), so that a catalog works on any data."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import count, islice

from tau2.domains.telecom.crm import TelecomDB
from tau2.errors import UserInputError

_NUMBER = re.compile(r"^(?P<exchange>\d{3}-\d{3}-)(?P<line>\d{4})$")


def spare_ids(prefix: str, taken: Iterable[str], wanted: int) -> list[str]:
    """`wanted` IDs `<prefix><n>` above the highest numbered one of `taken` (so none of them is taken)."""
    numbers = [int(name[len(prefix) :]) for name in taken if name[len(prefix) :].isdigit()]
    first = max(numbers, default=0) + 1
    return [f"{prefix}{number}" for number in range(first, first + wanted)]


def spare_numbers(crm: TelecomDB, near: str, wanted: int) -> list[str]:
    """`wanted` phone numbers on no line and of no customer, counting up from `near` in its exchange
    (555-410-7721 gives 555-410-7722, …) when it has that form, else in 555-000-."""
    match = _NUMBER.match(near)
    exchange, start = (match["exchange"], int(match["line"]) + 1) if match else ("555-000-", 1)
    used = {line.phone_number for line in crm.lines} | {customer.phone_number for customer in crm.customers}
    numbers = (f"{exchange}{number % 10000:04d}" for number in count(start))
    found = list(islice((number for number in islice(numbers, 10000) if number not in used), wanted))
    if len(found) < wanted:
        raise UserInputError(f"the telecom data uses all but {len(found)} numbers of the exchange {exchange}")
    return found
