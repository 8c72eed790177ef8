"""Reward-basis checks summed per evaluation kind, gating and diagnostic ones apart."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.runs import SimulationRecord
from tau2.tasks import RewardType


class CheckStat(BaseModel):
    """How one kind of check fared over the valid simulations, in one role (gating or diagnostic)."""

    model_config = ConfigDict(frozen=True)

    kind: RewardType
    gating: bool
    simulations: int
    checks: int
    passed: int
    failed: int
    not_judged: int


def check_stats(records: Sequence[SimulationRecord]) -> list[CheckStat]:
    """One row per (kind, role) present in the valid records, gating rows first, in kind order."""
    rows: dict[tuple[RewardType, bool], list[int]] = {}
    for record in records:
        if record.excluded:
            continue
        seen: set[tuple[RewardType, bool]] = set()
        for check in record.checks:
            key = (check.kind, check.gating)
            counts = rows.setdefault(key, [0, 0, 0, 0, 0])
            if key not in seen:
                seen.add(key)
                counts[0] += 1
            counts[1] += 1
            counts[2 if check.passed is True else 3 if check.passed is False else 4] += 1
    order = list(RewardType)
    return [
        CheckStat(
            kind=kind, gating=gating, simulations=c[0], checks=c[1], passed=c[2], failed=c[3], not_judged=c[4]
        )
        for (kind, gating), c in sorted(
            rows.items(), key=lambda item: (not item[0][1], order.index(item[0][0]))
        )
    ]
