"""The statistics of experiments: the exact McNemar test, the minimum detectable difference, the one-sentence
verdict, the bounds left by missing trials, and the adaptive allocation of trials."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb, exp, lgamma, log

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2.experiments import (
    ArmComparison,
    Budget,
    StopReason,
    allocate,
    compare_arms,
    minimum_detectable_difference,
)
from tau2.metrics import (
    Bootstrap,
    TaskCounts,
    TaskOutcome,
    mcnemar,
    mcnemar_p_value,
    missing_summary,
    paired_pass_hat_k,
    pass_hat_k_bounds,
    pass_hat_k_table,
)

FAST = Bootstrap(samples=200, seed=3)


# The exact McNemar test


def enumerated_p_value(b: int, c: int) -> Fraction:
    """Two-sided p-value by enumeration: the chance under binomial(b + c, ½) of an outcome no more likely
    than the one observed."""
    n = b + c
    observed = comb(n, b)
    return Fraction(sum(comb(n, k) for k in range(n + 1) if comb(n, k) <= observed), 2**n)


@given(st.integers(0, 40), st.integers(0, 40))
def test_mcnemar_p_value_is_the_enumerated_exact_value_and_symmetric(b: int, c: int) -> None:
    p = mcnemar_p_value(b, c)
    assert p == float(enumerated_p_value(b, c))
    assert p == mcnemar_p_value(c, b)
    assert 0.0 < p <= 1.0


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [(0, 0, 1.0), (3, 3, 1.0), (0, 5, 0.0625), (0, 6, 0.03125), (1, 5, 0.21875), (2, 3, 1.0)],
)
def test_mcnemar_hand_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_p_value(b, c) == expected


@given(st.integers(0, 30), st.integers(0, 30))
def test_a_more_lopsided_split_has_a_smaller_p_value(b: int, c: int) -> None:
    low, high = min(b, c), max(b, c)
    assert mcnemar_p_value(low, high + 1) <= mcnemar_p_value(low, high)


def test_mcnemar_is_exact_for_thousands_of_discordant_units() -> None:
    b, c = 4_870, 5_130
    n = b + c
    terms = [lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) - n * log(2) for k in range(b + 1)]
    top = max(terms)
    in_logs = 2 * exp(top) * sum(exp(t - top) for t in terms)
    assert mcnemar_p_value(b, c) == pytest.approx(in_logs, rel=1e-9)
    assert mcnemar_p_value(b, c) == pytest.approx(0.0096, abs=1e-4)


def test_mcnemar_counts_paired_units_and_leaves_incomplete_ones_out() -> None:
    pairs = [
        (True, True),
        (True, False),
        (False, True),
        (False, True),
        (False, False),
        (None, True),
        (True, None),
    ]
    test = mcnemar(pairs)
    assert (test.both_pass, test.flips_to_fail, test.flips_to_pass, test.both_fail) == (1, 1, 2, 1)
    assert test.incomplete == 2
    assert test.p_value == mcnemar_p_value(2, 1) == 1.0


def test_mcnemar_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_p_value(-1, 3)


# The minimum detectable difference

C = 1.959963984540054 + 0.8416212335729143
"""z at 97.5 % plus z at 80 %: the two-sided 95 % test at 80 % power."""


def test_mdd_is_c_times_the_standard_error_of_the_mean_difference() -> None:
    differences = [1.0, -0.5, 0.0, 0.5, 0.25] * 20
    expected = C * float(np.std(differences, ddof=1)) / 10
    assert minimum_detectable_difference(differences) == pytest.approx(expected)
    assert minimum_detectable_difference(differences, level=0.99) > expected
    assert minimum_detectable_difference(differences, power=0.9) > expected


def test_mdd_of_arms_that_agree_on_every_task_is_the_outright_flip_floor() -> None:
    assert minimum_detectable_difference([0.0] * 159) == pytest.approx(C * C / (159 + C * C))
    assert minimum_detectable_difference([0.0] * 159) == pytest.approx(0.047, abs=0.001)
    assert minimum_detectable_difference([0.5]) == pytest.approx(C * C / (1 + C * C))


def test_mdd_without_tasks_is_none_and_bad_levels_are_refused() -> None:
    assert minimum_detectable_difference([]) is None
    with pytest.raises(ValueError, match="level and power"):
        minimum_detectable_difference([0.1, 0.2], power=1.0)


@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=30), st.integers(2, 6))
def test_mdd_shrinks_as_the_same_tasks_are_drawn_again(differences: list[float], copies: int) -> None:
    once = minimum_detectable_difference(differences)
    more = minimum_detectable_difference(differences * copies)
    assert once is not None and more is not None
    assert more <= once + 1e-12


def test_a_true_difference_of_the_mdd_is_found_four_times_in_five() -> None:
    """Simulated experiments of 100 tasks × 4 trials, every task shifted by the MDD (from the spread the
    shift implies): the paired bootstrap interval excludes zero in about 80 % of them."""
    tasks, trials, baseline = 100, 4, 0.5
    shift = 0.1
    for _ in range(20):  # the spread depends on the shift: settle the fixed point
        spread = ((baseline * (1 - baseline) + (baseline + shift) * (1 - baseline - shift)) / trials) ** 0.5
        shift = C * spread / tasks**0.5
    rng = np.random.default_rng(7)
    found, estimated = 0, []
    runs = 300
    for _ in range(runs):
        a = TaskCounts.from_counts([trials] * tasks, rng.binomial(trials, baseline, tasks))
        b = TaskCounts.from_counts([trials] * tasks, rng.binomial(trials, baseline + shift, tasks))
        ci = paired_pass_hat_k(a, b, 1, Bootstrap(samples=400, seed=int(rng.integers(1 << 30))))["1"]
        assert ci.ci_low is not None
        found += ci.ci_low > 0
        mdd = minimum_detectable_difference((b.successes - a.successes) / trials)
        assert mdd is not None
        estimated.append(mdd)
    assert 0.72 <= found / runs <= 0.88
    assert np.mean(estimated) == pytest.approx(shift, rel=0.05)


# The verdict


def comparison(
    delta: float | None, ci: tuple[float, float] | None, p: float, mdd: float | None
) -> ArmComparison:
    return ArmComparison(
        arm="interactive",
        baseline="solo",
        tasks=159 if delta is not None else 0,
        delta_pass_hat_1=delta,
        ci=ci,
        level=0.95,
        p_value=p,
        mdd=mdd,
        power=0.8,
        flips_to_pass=3,
        flips_to_fail=40,
        incomplete=0,
    )


@pytest.mark.parametrize(
    ("delta", "ci", "p", "mdd", "sentence"),
    [
        (
            -0.2113,
            (-0.3012, -0.1209),
            0.00002,
            0.07,
            "interactive loses 0.21 pass^1 against solo (95 % CI −0.30 to −0.12; p < 0.001)",
        ),
        (
            0.104,
            (0.021, 0.18),
            0.0043,
            0.06,
            "interactive gains 0.10 pass^1 against solo (95 % CI 0.02 to 0.18; p = 0.004)",
        ),
        (
            -0.031,
            (-0.072, 0.012),
            0.3123,
            0.0812,
            "interactive against solo: no difference larger than 0.08 pass^1 is detectable with these trials "
            "(Δ −0.03; 95 % CI −0.07 to 0.01; p = 0.31)",
        ),
        (
            0.0,
            (-0.02, 0.02),
            1.0,
            0.047,
            "interactive against solo: no difference larger than 0.05 pass^1 is detectable with these trials "
            "(Δ 0.00; 95 % CI −0.02 to 0.02; p = 1.00)",
        ),
        (
            0.002,
            (0.001, 0.003),
            0.02,
            0.001,
            "interactive gains 0.002 pass^1 against solo (95 % CI 0.001 to 0.003; p = 0.02)",
        ),
        (None, None, 1.0, None, "interactive against solo: no task has valid trials in both arms"),
    ],
)
def test_verdict_sentences(
    delta: float | None, ci: tuple[float, float] | None, p: float, mdd: float | None, sentence: str
) -> None:
    assert comparison(delta, ci, p, mdd).verdict == sentence


def test_the_comparison_serialises_every_figure_the_report_names() -> None:
    data = comparison(-0.2, (-0.3, -0.1), 0.0001, 0.07).model_dump(mode="json")
    assert data["ci"] == [-0.3, -0.1]
    assert data["detected"] is True
    assert {
        "arm",
        "baseline",
        "delta_pass_hat_1",
        "ci",
        "p_value",
        "mdd",
        "flips_to_pass",
        "flips_to_fail",
    } <= set(data)
    assert data["verdict"].startswith("interactive loses 0.20 pass^1")


def test_an_always_transfer_agent_loses_against_the_oracle() -> None:
    """The shape of the experiments issue's bar, two trials of 159 tasks: the oracle solves every task, an
    agent that always transfers only the 62 whose correct outcome is a transfer."""
    tasks = 159
    transfers = set(random.Random(0).sample(range(tasks), 62))
    oracle = TaskCounts.from_counts([2] * tasks, [2] * tasks)
    transfer = TaskCounts.from_counts([2] * tasks, [2 if task in transfers else 0 for task in range(tasks)])
    units = mcnemar((True, task in transfers) for task in range(tasks) for _ in range(2))
    result = compare_arms(
        "transfer", "oracle", arm_counts=transfer, baseline_counts=oracle, units=units, bootstrap=Bootstrap()
    )
    assert result.delta_pass_hat_1 == pytest.approx(-97 / 159)
    assert result.flips_to_fail == 194 and result.flips_to_pass == 0
    assert result.p_value < 0.001 and result.detected
    assert result.verdict.startswith("transfer loses 0.61 pass^1 against oracle (95 % CI −0.")


def test_compare_arms_uses_each_side_s_own_trials() -> None:
    """Unequal trials: per-task pass^1 divides by each arm's own valid trials."""
    base = TaskCounts.from_counts([2, 6, 3], [1, 6, 0])
    arm = TaskCounts.from_counts([4, 3, 3], [4, 3, 3])
    result = compare_arms("b", "a", arm_counts=arm, baseline_counts=base, units=mcnemar([]), bootstrap=FAST)
    assert result.delta_pass_hat_1 == pytest.approx((0.5 + 0 + 1) / 3)
    assert result.tasks == 3


# Missing trials


def counts_with_missing() -> st.SearchStrategy[tuple[list[int], list[int], list[int]]]:
    task = st.tuples(st.integers(0, 8), st.integers(0, 4)).flatmap(
        lambda nm: st.tuples(st.just(nm[0]), st.integers(0, nm[0]), st.just(nm[1]))
    )
    return st.lists(task, min_size=1, max_size=12).map(
        lambda rows: [list(column) for column in zip(*rows, strict=True)]
    )


def test_bounds_count_missing_trials_as_failures_then_as_successes() -> None:
    counts = TaskCounts.from_counts([2, 0, 4], [1, 0, 4], [2, 3, 0])
    bounds = pass_hat_k_bounds(counts, 2)
    assert bounds["1"].tasks == 3
    assert bounds["1"].low == pytest.approx((1 / 4 + 0 + 1) / 3)
    assert bounds["1"].high == pytest.approx((3 / 4 + 1 + 1) / 3)
    assert bounds["2"].low == pytest.approx((0 + 0 + 1) / 3)
    assert bounds["2"].high == pytest.approx((comb(3, 2) / comb(4, 2) + 1 + 1) / 3)


def test_without_missing_trials_the_bounds_are_the_estimate() -> None:
    counts = TaskCounts.from_counts([3, 4], [1, 4])
    table = pass_hat_k_table(counts, 3)
    for k, bound in pass_hat_k_bounds(counts, 3).items():
        assert bound.low == bound.high == pytest.approx(float(np.nanmean(table[int(k) - 1])))


@given(counts_with_missing())
def test_bounds_bracket_every_task_and_pass_1(columns: tuple[list[int], list[int], list[int]]) -> None:
    trials, successes, missing = columns
    counts = TaskCounts.from_counts(trials, successes, missing)
    ended = counts.planned
    k_max = max(1, int(ended.max()))
    estimate = pass_hat_k_table(counts, k_max)
    low = pass_hat_k_table(TaskCounts.from_counts(ended, successes), k_max)
    high = pass_hat_k_table(TaskCounts.from_counts(ended, counts.successes + counts.missing), k_max)
    valid = ~np.isnan(estimate)
    assert (low[valid] <= estimate[valid] + 1e-12).all() and (estimate[valid] <= high[valid] + 1e-12).all()
    if (counts.trials > 0).any():
        bound = pass_hat_k_bounds(counts, 1)["1"]
        pass_1 = float(np.nanmean(estimate[0]))
        assert bound.low is not None and bound.high is not None
        assert bound.low - 1e-12 <= pass_1 <= bound.high + 1e-12


def test_a_task_whose_every_trial_is_missing_is_listed_and_bounds_pass_k() -> None:
    def task(task_id: str, trials: int, successes: int, excluded: int) -> TaskOutcome:
        return TaskOutcome(
            task_id=task_id,
            intent=None,
            subtasks=1,
            persona=None,
            mode="interactive",
            trials=trials,
            successes=successes,
            excluded=excluded,
        )

    outcomes = [task("a", 2, 2, 0), task("b", 0, 0, 2), task("c", 1, 0, 1)]
    summary = missing_summary(outcomes, 2)
    assert (summary.trials, summary.tasks, summary.all_missing) == (3, 2, ["b"])
    assert summary.bounds["1"].low == pytest.approx((1 + 0 + 0) / 3)
    assert summary.bounds["1"].high == pytest.approx((1 + 1 + 0.5) / 3)
    assert TaskCounts.of(outcomes).missing.tolist() == [0, 2, 1]


def test_task_counts_refuse_negative_or_misshapen_missing_counts() -> None:
    with pytest.raises(ValueError, match="missing >= 0"):
        TaskCounts.from_counts([2], [1], [-1])
    with pytest.raises(ValueError, match="same length"):
        TaskCounts.from_counts([2, 2], [1, 1], [0])


# Adaptive allocation


def paired(trials: list[int], *successes: list[int]) -> list[TaskCounts]:
    return [TaskCounts.from_counts(trials, arm) for arm in successes]


def test_the_initial_round_runs_trial_by_trial_across_tasks() -> None:
    arms = paired([1, 0, 2, 0], [1, 0, 2, 0], [0, 0, 1, 0])
    allocation = allocate(arms, Budget(max_simulations=100), round_size=10)
    assert allocation.tasks == [1, 3, 0]
    assert allocation.stop is None and allocation.simulations == 6


def test_after_the_initial_round_uncertain_tasks_come_first() -> None:
    arms = paired([2, 2, 2, 2], [2, 0, 1, 2], [2, 0, 2, 1])
    allocation = allocate(arms, Budget(max_simulations=100), round_size=2)
    assert sorted(allocation.tasks) == [2, 3]
    tasks = 40
    many = paired([6] * tasks, [6] * (tasks - 1) + [3], [6] * (tasks - 1) + [2])
    assert allocate(many, Budget(max_simulations=10_000), round_size=1, seed=5).tasks == [tasks - 1]


def test_an_arm_at_its_target_stops_drawing_trials_to_its_tasks() -> None:
    """Three arms: the second is as precise as asked, the third is not; only the third's uncertainty counts
    (counted, the second's tasks 100..109, the most uncertain of all, would come first)."""
    tasks = 200
    baseline = [4] * tasks
    settled = [4] * 100 + [2] * 10 + [4] * 90
    noisy = [1, 3] * 50 + [4] * 100
    arms = paired([4] * tasks, baseline, settled, noisy)
    budget = Budget(max_simulations=10_000, target_half_width=0.03)
    allocation = allocate(arms, budget, round_size=5)
    assert allocation.half_widths[0] is not None and allocation.half_widths[0] <= 0.03
    assert allocation.half_widths[1] is not None and allocation.half_widths[1] > 0.03
    assert len(allocation.tasks) == 5 and all(task < 100 for task in allocation.tasks)


def test_allocation_stops_at_the_target_or_the_budget() -> None:
    tasks = 200
    same = paired([3] * tasks, [3] * tasks, [3] * tasks)
    at_target = allocate(same, Budget(max_simulations=10_000, target_half_width=0.05), round_size=5)
    assert at_target.stop is StopReason.TARGET and at_target.tasks == []
    spent = allocate(same, Budget(max_simulations=3 * tasks * 2 + 1), round_size=5)
    assert spent.stop is StopReason.BUDGET and spent.simulations == 1200
    squeezed = allocate(same, Budget(max_simulations=3 * tasks * 2 + 6), round_size=5)
    assert squeezed.stop is None and len(squeezed.tasks) == 3


def test_missing_trials_are_spent_simulations() -> None:
    arms = [TaskCounts.from_counts([1, 2], [1, 1], [1, 0]), TaskCounts.from_counts([2, 2], [2, 0])]
    assert allocate(arms, Budget(max_simulations=100), round_size=1).simulations == 8


def test_allocation_refuses_unpaired_arms_and_impossible_rounds() -> None:
    with pytest.raises(ValueError, match="task 1 has 2 ended trials in the baseline and 3 in arm 1"):
        allocate(paired([2, 2], [1, 1]) + paired([2, 3], [1, 1]), Budget(max_simulations=9), round_size=1)
    with pytest.raises(ValueError, match="at least one other arm"):
        allocate(paired([2], [1]), Budget(max_simulations=9), round_size=1)
    with pytest.raises(ValueError, match="at least one task"):
        allocate(paired([], [], []), Budget(max_simulations=9), round_size=1)
    with pytest.raises(ValueError, match="round_size must be at least 1"):
        allocate(paired([2], [1], [1]), Budget(max_simulations=9), round_size=0)
    with pytest.raises(ValueError, match="arm 1 has 1 tasks, the baseline 2"):
        allocate(paired([2, 2], [1, 1]) + paired([2], [1]), Budget(max_simulations=9), round_size=1)


@settings(deadline=None, max_examples=25)
@given(
    tasks=st.integers(1, 12),
    arms=st.integers(2, 3),
    max_simulations=st.integers(1, 400),
    target=st.one_of(st.none(), st.floats(0.05, 0.5)),
    round_size=st.integers(1, 5),
    seed=st.integers(0, 3),
)
def test_allocation_keeps_arms_paired_within_budget_and_is_deterministic(
    tasks: int, arms: int, max_simulations: int, target: float | None, round_size: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    rates = rng.random((arms, tasks))
    budget = Budget(max_simulations=max_simulations, target_half_width=target)
    trials = np.zeros(tasks, dtype=np.int64)
    successes = np.zeros((arms, tasks), dtype=np.int64)
    for _ in range(max_simulations + 1):
        counts = [TaskCounts(trials.copy(), successes[arm].copy(), 0 * trials) for arm in range(arms)]
        allocation = allocate(counts, budget, round_size=round_size, seed=seed, bootstrap=FAST)
        assert allocation == allocate(counts, budget, round_size=round_size, seed=seed, bootstrap=FAST)
        assert allocation.simulations == arms * int(trials.sum())
        if allocation.stop is not None:
            assert allocation.tasks == []
            break
        assert 1 <= len(allocation.tasks) <= round_size
        assert len(set(allocation.tasks)) == len(allocation.tasks)
        for task in allocation.tasks:
            trials[task] += 1
            successes[:, task] += rng.random(arms) < rates[:, task]
        assert arms * int(trials.sum()) <= max_simulations
    else:
        pytest.fail("the allocation never stopped")
    assert allocation.stop is StopReason.TARGET or max_simulations - allocation.simulations < arms
