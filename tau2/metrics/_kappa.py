"""Chance-corrected agreement between raters who each label the same items: Cohen's κ for two raters,
Fleiss' κ for any number. Both are (observed − chance) / (1 − chance). When every label is the same one,
chance agreement is already perfect and the formula reads 0/0: κ is then None (undefined), not 1, since
raters who never use a second label show no sign of telling the classes apart (two judges that pass
everything agree on every item by construction). Readers show the raw agreement beside κ for that case."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two raters' labels of the same items (item i labelled `first[i]` and `second[i]`);
    chance agreement comes from each rater's own label frequencies. None when there are no items, or when
    every label of both raters is the same one (κ is undefined there)."""
    if len(first) != len(second):
        raise ValueError(f"the raters labelled {len(first)} and {len(second)} items: give the same items")
    items = len(first)
    if not items or len(set(first) | set(second)) == 1:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / items
    counts_first, counts_second = Counter(first), Counter(second)
    chance = sum(counts_first[label] * counts_second[label] for label in counts_first) / items**2
    return (observed - chance) / (1 - chance)


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' κ of `ratings[item]`, the labels every rater gave that item (the same number of raters,
    at least two, for each item); chance agreement comes from the labels' overall frequencies. None when
    there are no items, or when every label is the same one (κ is undefined there)."""
    if not ratings:
        return None
    raters = len(ratings[0])
    if raters < 2 or any(len(labels) != raters for labels in ratings):
        raise ValueError("Fleiss' kappa needs the same number of raters, at least two, for every item")
    per_item = [Counter(labels) for labels in ratings]
    totals: Counter[Hashable] = Counter()
    for counts in per_item:
        totals.update(counts)
    if len(totals) == 1:
        return None
    pairs = raters * (raters - 1)
    observed = sum(sum(n * (n - 1) for n in counts.values()) / pairs for counts in per_item) / len(ratings)
    labels = len(ratings) * raters
    chance = sum((n / labels) ** 2 for n in totals.values())
    return (observed - chance) / (1 - chance)
