"""Per reference action: how often each expected action was performed, and by the seat it names."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.runs import SimulationRecord
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


def action_stats(records: Sequence[SimulationRecord]) -> list[ActionStat]:
    """One row per expected action name (valid simulations only), sorted by name."""
    counts: dict[str, tuple[Side, int, int, int]] = {}
    for record in records:
        if record.excluded:
            continue
        for action in record.actions:
            side, expected, done, right = counts.get(action.name, (action.side, 0, 0, 0))
            counts[action.name] = (side, expected + 1, done + action.performed, right + action.by_right_seat)
    return [
        ActionStat(name=name, side=side, expected=expected, performed=performed, by_right_seat=right)
        for name, (side, expected, performed, right) in sorted(counts.items())
    ]
