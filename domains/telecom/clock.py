"""The frozen clock every date-dependent rule uses, and the helper dates derived from it (spec §0)."""

from __future__ import annotations

import calendar
import datetime as dt

TODAY = dt.date(2025, 2, 25)
NOW = dt.datetime(2025, 2, 25, 12, 8, 0)
"""The frozen "now" (the policy states it in EST)."""


def month_start(day: dt.date, offset: int = 0) -> dt.date:
    """First day of the month `offset` months after the month of `day`."""
    index = day.year * 12 + day.month - 1 + offset
    return dt.date(index // 12, index % 12 + 1, 1)


def month_end(day: dt.date, offset: int = 0) -> dt.date:
    """Last day of the month `offset` months after the month of `day` (December included, Δ10)."""
    start = month_start(day, offset)
    return start.replace(day=calendar.monthrange(start.year, start.month)[1])


PREVIOUS_MONTH_START = month_start(TODAY, -1)
PREVIOUS_MONTH_END = month_end(TODAY, -1)
CURRENT_MONTH_END = month_end(TODAY)
NEXT_MONTH_START = month_start(TODAY, 1)
NEXT_MONTH_END = month_end(TODAY, 1)
PAYMENT_TERM = dt.timedelta(days=14)
"""Days between a bill's reference date and its due date."""
