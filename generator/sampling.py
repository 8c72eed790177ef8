"""Selecting drafts: filters by subtask and size, and stratified sampling as τ²-bench does it."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Hashable, Sequence
from fractions import Fraction
from math import floor

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
    rng = random.Random(seed)
    sampled: list[Draft] = []
    for members in _bins(drafts):
        sampled.extend(rng.sample(members, min(per_bin, len(members))))
    return sampled


def capped_sample(
    drafts: Sequence[Draft],
    per_bin: int | None,
    seed: int,
    is_transfer: Callable[[Draft], bool],
    max_share: float,
) -> list[Draft]:
    """Up to `per_bin` drafts per stratum (all without it), of which transfers make at most `max_share`.

    Per bin, in first-appearance order, with one `random.Random(seed)`: of the k = min(per_bin, size)
    drafts to keep, up to floor(share * k) are transfers and the rest fixable; when too few fixable drafts
    exist, transfers are cut further so that their share still holds (a bin of transfers only is left
    out). Each bin's drafts keep their pool order.
    """
    share = Fraction(max_share).limit_denominator(10**6)
    rng = random.Random(seed)
    kept: list[Draft] = []
    for members in _bins(drafts):
        transfers = [draft for draft in members if is_transfer(draft)]
        fixable = [draft for draft in members if not is_transfer(draft)]
        size = len(members) if per_bin is None else min(per_bin, len(members))
        wanted = min(len(transfers), floor(share * size))
        taken = min(len(fixable), size - wanted)
        if share < 1:
            wanted = min(wanted, floor(share * taken / (1 - share)))
        chosen = {id(draft) for draft in rng.sample(transfers, wanted) + rng.sample(fixable, taken)}
        kept.extend(draft for draft in members if id(draft) in chosen)
    return kept


def _bins(drafts: Sequence[Draft]) -> list[list[Draft]]:
    """Drafts grouped by stratum, bins in first-appearance order."""
    bins: dict[Hashable, list[Draft]] = {}
    for draft in drafts:
        bins.setdefault(bin_key(draft), []).append(draft)
    return list(bins.values())
