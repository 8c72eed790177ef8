"""The cost and token ledger per seat, with the replies cut off at the token cap and the format failures;
an unpriced model makes the seat's cost unknown, never zero."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from tau2.llm import Usage
from tau2.runs import SimulationRecord
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


def seat_usage(records: Sequence[SimulationRecord]) -> list[SeatUsage]:
    """Usage of each seat, then of the judge, that appears in any record (excluded simulations too: they
    were paid for)."""
    ledger: list[SeatUsage] = []
    columns: list[tuple[Side | Literal["judge"], list[Usage]]] = [
        (seat, [record.usage[seat] for record in records if seat in record.usage]) for seat in Side
    ]
    columns.append((JUDGE, [record.judge_usage for record in records if record.judge_usage is not None]))
    for seat, usages in columns:
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
                truncated=total.truncated,
                format_failures=sum(record.format_failures.get(seat, 0) for record in records)
                if isinstance(seat, Side)
                else 0,
            )
        )
    return ledger
