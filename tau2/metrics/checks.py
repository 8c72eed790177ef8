"""Reward-basis checks summed per evaluation kind, gating and diagnostic ones apart."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from tau2.runs import RecordHead
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
    not_needed: int = 0
    """Statements the judges were not asked about: a deterministic part of the reward had already failed
    (counted apart from `not_judged`)."""


def check_stats(records: Iterable[RecordHead]) -> list[CheckStat]:
    """One row per (kind, role) present in the valid records, gating rows first, in kind order."""
    tally = CheckTally()
    for record in records:
        tally.add(record)
    return tally.stats()


class CheckTally:
    """Per (kind, role) of reward-basis check: simulations, checks, passed, failed, not judged and not needed,
    over the valid records added so far."""

    def __init__(self) -> None:
        self._rows: dict[tuple[RewardType, bool], list[int]] = {}

    def add(self, record: RecordHead) -> None:
        """Count one record's checks (none for an excluded record)."""
        if record.excluded:
            return
        seen: set[tuple[RewardType, bool]] = set()
        for check in record.checks:
            key = (check.kind, check.gating)
            counts = self._rows.setdefault(key, [0, 0, 0, 0, 0, 0])
            if key not in seen:
                seen.add(key)
                counts[0] += 1
            counts[1] += 1
            unjudged = 5 if record.judge_skipped is not None and check.kind is RewardType.NL_ASSERTION else 4
            counts[2 if check.passed is True else 3 if check.passed is False else unjudged] += 1

    def stats(self) -> list[CheckStat]:
        """One row per (kind, role), gating rows first, in kind order."""
        order = list(RewardType)
        return [
            CheckStat(
                kind=kind,
                gating=gating,
                simulations=c[0],
                checks=c[1],
                passed=c[2],
                failed=c[3],
                not_judged=c[4],
                not_needed=c[5],
            )
            for (kind, gating), c in sorted(
                self._rows.items(), key=lambda item: (not item[0][1], order.index(item[0][0]))
            )
        ]
