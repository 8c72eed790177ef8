"""Holm's correction of several p-values: the adjusted values against the step-down procedure they
encode, and verdicts of several arms that a correction qualifies."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tau2.experiments import ArmComparison
from tau2.metrics import holm

P_VALUES = st.lists(st.floats(0.0, 1.0), max_size=12)


def step_down_rejections(p_values: list[float], alpha: float) -> set[int]:
    """Holm's procedure as stated: sort ascending, reject while p_(i) <= alpha / (m - i), stop at the first
    that is not."""
    m = len(p_values)
    rejected: set[int] = set()
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[index] > alpha / (m - rank):
            break
        rejected.add(index)
    return rejected


@given(P_VALUES, st.sampled_from([0.01, 0.05, 0.1]))
def test_adjusted_values_reject_what_the_step_down_procedure_rejects(
    p_values: list[float], alpha: float
) -> None:
    adjusted = holm(p_values)
    assert {i for i, p in enumerate(adjusted) if p <= alpha} == step_down_rejections(p_values, alpha)


@given(P_VALUES)
def test_adjusted_values_are_bounded_and_keep_the_order(p_values: list[float]) -> None:
    adjusted = holm(p_values)
    assert all(p <= q <= 1.0 for p, q in zip(p_values, adjusted, strict=True))
    for i, p in enumerate(p_values):
        for j, q in enumerate(p_values):
            if p < q:
                assert adjusted[i] <= adjusted[j]


def test_known_values_and_one_test_unchanged() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2]) == [0.2] and holm([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


def comparison(delta: float, p: float, p_holm: float | None, family: int) -> ArmComparison:
    return ArmComparison(
        arm="b",
        baseline="a",
        tasks=50,
        delta_pass_hat_1=delta,
        ci=(delta - 0.05, delta + 0.05),
        level=0.95,
        p_value=p,
        mdd=0.08,
        power=0.8,
        flips_to_pass=1,
        flips_to_fail=9,
        incomplete=0,
        p_holm=p_holm,
        family=family,
    )


def test_a_difference_not_significant_after_the_correction_says_so() -> None:
    alone = comparison(-0.10, 0.03, 0.03, 1)
    assert alone.verdict.startswith("b loses 0.10 pass^1 against a")
    corrected = comparison(-0.10, 0.03, 0.09, 3)
    assert corrected.verdict == (
        "b against a: Δ −0.10 pass^1 (95 % CI −0.15 to −0.05; p = 0.03) is not significant once corrected "
        "for 3 arms (Holm p = 0.09)"
    )


def test_worse_by_more_than_a_margin_needs_the_corrected_test_and_the_size() -> None:
    assert comparison(-0.10, 0.01, 0.02, 2).worse_by_more_than(0.0)
    assert comparison(-0.10, 0.01, 0.02, 2).worse_by_more_than(0.05)
    assert not comparison(-0.10, 0.01, 0.02, 2).worse_by_more_than(0.10)
    assert not comparison(-0.10, 0.01, 0.06, 2).worse_by_more_than(0.0)
    assert not comparison(0.10, 0.001, 0.002, 2).worse_by_more_than(0.0)
    assert comparison(-0.10, 0.04, None, 1).worse_by_more_than(0.0)
