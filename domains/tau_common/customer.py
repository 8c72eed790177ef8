"""Which customer of the data a τ-bench task's user plays, for `Domain.customer_record`: the texts name
the customer by an id or by full name, never through the world's state."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime

_WORD = re.compile(r"[A-Za-z0-9_]+")
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y")


def speaker_id(text: str, names: Mapping[str, str]) -> str | None:
    """The id (a key of `names`, which maps ids to full names) that `text` speaks as: the one customer
    whose full name the text holds (case aside), else the one id the text writes as a word; None when the
    text names no customer, or several both ways."""
    lowered = " ".join(text.lower().split())
    by_name = [key for key, name in names.items() if name and name.lower() in lowered]
    if len(by_name) == 1:
        return by_name[0]
    words = set(_WORD.findall(text))
    by_id = [key for key in names if key in words]
    return by_id[0] if len(by_id) == 1 else None


def parse_date(text: str) -> date | None:
    """A date written `YYYY-MM-DD` or `MM/DD/YYYY` (the τ-bench databases' forms); None otherwise."""
    for layout in _DATE_FORMATS:
        try:
            return datetime.strptime(text, layout).date()
        except ValueError:
            continue
    return None
