"""Holm's step-down correction of several p-values tested together (an experiment's arms against its
baseline, the groups of one breakdown): it controls the chance of any false finding among them at α, for
any dependence between the tests, and is never less powerful than Bonferroni's."""

from __future__ import annotations

from collections.abc import Sequence


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given: with the m p-values sorted ascending, the i-th (from 0)
    is multiplied by m − i, each adjusted value is at least the one before it in that order, and none
    exceeds 1. A hypothesis is rejected at α exactly when its adjusted p-value is at most α."""
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        value = p_values[index]
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"p-values lie in [0, 1]: {value}")
        running = max(running, min(1.0, (m - rank) * value))
        adjusted[index] = running
    return adjusted
