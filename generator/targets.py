"""Which target's catalog each draft is built from: one fixed target, or a seeded spread over all."""

from __future__ import annotations

import random
from collections.abc import Sequence

from tau2.generator.assign import Draft
from tau2.generator.compose import Composition
from tau2.generator.options import TargetMode
from tau2.tasks import Catalog


def assign_targets(
    drafts: Sequence[Draft], catalogs: Sequence[Catalog], mode: TargetMode, seed: int
) -> list[Catalog]:
    """The catalog for each draft. `spread` shuffles the targets with `random.Random(seed)` and deals
    them round-robin to compositions in first-appearance order, so every persona of a composition
    shares its target."""
    if mode is TargetMode.FIXED:
        return [catalogs[0]] * len(drafts)
    dealt = list(catalogs)
    random.Random(seed).shuffle(dealt)
    chosen: dict[Composition, Catalog] = {}
    for draft in drafts:
        if draft.composition not in chosen:
            chosen[draft.composition] = dealt[len(chosen) % len(dealt)]
    return [chosen[draft.composition] for draft in drafts]
