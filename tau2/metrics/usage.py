"""The cost and token ledger per seat, with the replies cut off at the token cap and the format failures;
an unpriced model makes the seat's cost unknown, never zero."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from tau2.llm import Usage
from tau2.runs import RecordHead
from tau2.world import Side

JUDGE: Final = "judge"
"""The ledger line of the natural-language judge, beside the two seats."""


class SeatUsage(BaseModel):
    """One seat's (or the judge's) model usage summed over simulations; `cost` is None when `unpriced` > 0."""

    model_config = ConfigDict(frozen=True)

    seat: Side | Literal["judge"]
    simulations: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    unpriced: int
    """Simulations in which this seat's cost was unknown."""
    truncated: int = 0
    """Replies cut off at the token cap."""
    format_failures: int = 0
    """Rejected replies whose text looked like tool calls (the judge has none)."""
    cached_calls: int = 0
    """Of `calls`, those the model cache answered (`--cache`): nothing was sent for them."""
    cached_cost: float = 0.0
    """Of `cost`, what the cached answers cost when first asked: the USD the cache saved."""


def seat_usage(records: Iterable[RecordHead]) -> list[SeatUsage]:
    """Usage of each seat, then of the judge, that appears in any record (excluded simulations too: they
    were paid for)."""
    tally = UsageTally()
    for record in records:
        tally.add(record)
    return tally.ledger()


class UsageSum:
    """One ledger line's running sums: the usage added, the simulations it came from, those unpriced."""

    def __init__(self) -> None:
        self.total = Usage()
        self.simulations = self.unpriced = self.format_failures = 0

    def add(self, usage: Usage) -> None:
        self.total += usage
        self.simulations += 1
        self.unpriced += usage.cost is None

    def line(self) -> dict[str, Any]:
        """The fields every usage line shows (a seat's and a judge's alike)."""
        total = self.total
        return {
            "simulations": self.simulations,
            "calls": total.calls,
            "prompt_tokens": total.prompt_tokens,
            "completion_tokens": total.completion_tokens,
            "cost": total.cost,
            "unpriced": self.unpriced,
        }


class UsageTally:
    """Per seat and for the judge, model usage summed over the records added so far (excluded ones too)."""

    def __init__(self) -> None:
        self._columns: dict[Side | Literal["judge"], UsageSum] = {seat: UsageSum() for seat in (*Side, JUDGE)}

    def add(self, record: RecordHead) -> None:
        """Add one record's usage."""
        for seat in Side:
            if seat in record.usage:
                self._columns[seat].add(record.usage[seat])
            self._columns[seat].format_failures += record.format_failures.get(seat, 0)
        if record.judge_usage is not None:
            self._columns[JUDGE].add(record.judge_usage)

    def ledger(self) -> list[SeatUsage]:
        """One line per seat, then the judge, that appeared in any record."""
        return [
            SeatUsage(
                seat=seat,
                **column.line(),
                truncated=column.total.truncated,
                format_failures=column.format_failures,
                cached_calls=column.total.cached_calls,
                cached_cost=column.total.cached_cost,
            )
            for seat, column in self._columns.items()
            if column.simulations
        ]
