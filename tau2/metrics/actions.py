"""Per reference action: how often each expected action was performed, and by the seat it names."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.runs import RecordHead
from tau2.world import Side


class ActionStat(BaseModel):
    """Counts over valid simulations whose reference solution contains the action `name`."""

    model_config = ConfigDict(frozen=True)

    name: str
    side: Side
    expected: int
    performed: int
    by_right_seat: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def performed_rate(self) -> float:
        """Fraction of expected occurrences that were performed."""
        return self.performed / self.expected

    @computed_field  # type: ignore[prop-decorator]
    @property
    def right_seat_rate(self) -> float:
        """Fraction of expected occurrences performed on the action's own side."""
        return self.by_right_seat / self.expected


def action_stats(records: Iterable[RecordHead]) -> list[ActionStat]:
    """One row per expected action name (valid simulations only), sorted by name."""
    tally = ActionTally()
    for record in records:
        tally.add(record)
    return tally.stats()


class ActionTally:
    """Per expected action name: its seat (as first seen), expected, performed and by-the-right-seat
    counts over the valid records added so far."""

    def __init__(self) -> None:
        self._counts: dict[str, tuple[Side, int, int, int]] = {}

    def add(self, record: RecordHead) -> None:
        """Count one record's reference actions (none for an excluded record)."""
        if record.excluded:
            return
        for action in record.actions:
            side, expected, done, right = self._counts.get(action.name, (action.side, 0, 0, 0))
            self._counts[action.name] = (
                side,
                expected + 1,
                done + action.performed,
                right + action.by_right_seat,
            )

    def stats(self) -> list[ActionStat]:
        """One row per expected action name, sorted by name."""
        return [
            ActionStat(name=name, side=side, expected=expected, performed=performed, by_right_seat=right)
            for name, (side, expected, performed, right) in sorted(self._counts.items())
        ]
