"""The cost and token ledger per seat; an unpriced model makes the seat's cost unknown, never zero."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.llm import Usage
from tau2.runs import SimulationRecord
from tau2.world import Side


class SeatUsage(BaseModel):
    """One seat's model usage summed over simulations; `cost` is None when `unpriced` > 0."""

    model_config = ConfigDict(frozen=True)

    seat: Side
    simulations: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    unpriced: int
    """Simulations in which this seat's cost was unknown."""


def seat_usage(records: Sequence[SimulationRecord]) -> list[SeatUsage]:
    """Usage of each seat that appears in any record (excluded simulations too: they were paid for)."""
    ledger: list[SeatUsage] = []
    for seat in Side:
        usages = [record.usage[seat] for record in records if seat in record.usage]
        if not usages:
            continue
        total = sum(usages, Usage())
        ledger.append(
            SeatUsage(
                seat=seat,
                simulations=len(usages),
                calls=total.calls,
                prompt_tokens=total.prompt_tokens,
                completion_tokens=total.completion_tokens,
                cost=total.cost,
                unpriced=sum(usage.cost is None for usage in usages),
            )
        )
    return ledger
