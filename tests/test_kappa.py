"""Cohen's and Fleiss' κ: textbook examples, the case where every label is the same one (κ undefined), and
properties every ratings table has (identical verdicts of two labels agree perfectly, the raters' order
does not matter, κ never exceeds 1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tau2.metrics import cohen_kappa, fleiss_kappa

VERDICTS = st.lists(st.booleans(), min_size=1, max_size=40)
LABELS = st.sampled_from(["pass", "fail", "unclear"])


def table(counts: dict[tuple[str, str], int]) -> tuple[list[str], list[str]]:
    """Two raters' labels from a contingency table (label of rater A, label of rater B) → items."""
    first = [a for (a, _), n in counts.items() for _ in range(n)]
    second = [b for (_, b), n in counts.items() for _ in range(n)]
    return first, second


def test_cohen_textbook_two_by_two() -> None:
    # 50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15 → p_o 0.7, p_e 0.5, κ 0.4.
    first, second = table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15})
    assert cohen_kappa(first, second) == pytest.approx(0.4)


def test_cohen_chance_level_agreement_is_zero() -> None:
    # Each rater says yes half the time, independently of the other: agreement is what chance gives.
    first, second = table({("yes", "yes"): 25, ("yes", "no"): 25, ("no", "yes"): 25, ("no", "no"): 25})
    assert cohen_kappa(first, second) == pytest.approx(0.0)


def test_cohen_complete_disagreement_on_two_balanced_labels_is_minus_one() -> None:
    assert cohen_kappa([True, False] * 5, [False, True] * 5) == pytest.approx(-1.0)


def test_fleiss_textbook_example() -> None:
    # Fleiss (1971) as usually retold: 10 subjects, 14 raters, 5 categories; κ ≈ 0.210.
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[category for category, n in enumerate(row) for _ in range(n)] for row in counts]
    assert fleiss_kappa(ratings) == pytest.approx(0.2099, abs=5e-5)


def test_no_items_have_no_kappa() -> None:
    assert cohen_kappa([], []) is None and fleiss_kappa([]) is None


def test_unequal_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([True], [True, False])
    with pytest.raises(ValueError, match="at least two"):
        fleiss_kappa([[True, True], [True]])
    with pytest.raises(ValueError, match="at least two"):
        fleiss_kappa([[True]])


@given(VERDICTS)
def test_identical_verdicts_agree_perfectly(verdicts: list[bool]) -> None:
    expected = 1.0 if len(set(verdicts)) == 2 else None  # one label only: κ is undefined
    assert cohen_kappa(verdicts, verdicts) == expected
    assert fleiss_kappa([[v, v, v] for v in verdicts]) == expected


@pytest.mark.parametrize("label", [True, False, "pass"])
def test_one_label_everywhere_has_no_kappa(label: object) -> None:
    # Chance agreement is already perfect (the formula reads 0/0): raters who never use a second label
    # show no sign of telling the classes apart, so their agreement is not called perfect.
    assert cohen_kappa([label] * 5, [label] * 5) is None
    assert fleiss_kappa([[label] * 3] * 5) is None


def test_raters_each_keeping_to_their_own_label_agree_as_chance_gives() -> None:
    assert cohen_kappa([True] * 4, [False] * 4) == pytest.approx(0.0)


@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=40))
def test_cohen_is_symmetric_and_at_most_one(pairs: list[tuple[str, str]]) -> None:
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    kappa = cohen_kappa(first, second)
    if len(set(first) | set(second)) == 1:
        assert kappa is None and cohen_kappa(second, first) is None
        return
    assert kappa is not None and kappa <= 1.0
    assert cohen_kappa(second, first) == pytest.approx(kappa)


@given(
    st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=1, max_size=30),
    st.permutations(range(3)),
)
def test_fleiss_does_not_depend_on_the_raters_order(ratings: list[list[bool]], order: list[int]) -> None:
    kappa = fleiss_kappa(ratings)
    if len({label for row in ratings for label in row}) == 1:
        assert kappa is None and fleiss_kappa([[row[i] for i in order] for row in ratings]) is None
        return
    assert kappa is not None and kappa <= 1.0
    assert fleiss_kappa([[row[i] for i in order] for row in ratings]) == pytest.approx(kappa)
