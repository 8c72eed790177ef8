"""Selecting drafts: filters by subtask and size, and stratified sampling as τ²-bench does it."""

from __future__ import annotations

import random
from collections.abc import Collection, Hashable, Sequence

from tau2.generator.assign import Draft


def select(
    drafts: Sequence[Draft], exclude: Collection[str], min_subtasks: int, max_subtasks: int | None
) -> list[Draft]:
    """Drafts without excluded subtasks whose number of subtasks lies in [min, max]."""
    return [
        draft
        for draft in drafts
        if min_subtasks <= draft.size <= (max_subtasks or draft.size)
        and not any(name in exclude for name in draft.composition.subtasks)
    ]


def bin_key(draft: Draft) -> Hashable:
    """The stratum of a draft: (intent, number of subtasks, persona label)."""
    return (draft.composition.intent, draft.size, draft.persona.label)


def stratified_sample(drafts: Sequence[Draft], per_bin: int, seed: int) -> list[Draft]:
    """Up to `per_bin` drafts per stratum: bins in first-appearance order, one `random.Random(seed)`,
    `sample(bin, min(per_bin, len(bin)))` per bin, results concatenated bin by bin."""
    bins: dict[Hashable, list[Draft]] = {}
    for draft in drafts:
        bins.setdefault(bin_key(draft), []).append(draft)
    rng = random.Random(seed)
    sampled: list[Draft] = []
    for members in bins.values():
        sampled.extend(rng.sample(members, min(per_bin, len(members))))
    return sampled
