"""Metrics: the pass^k estimator (hand values and properties), bootstrap intervals, flips, breakdowns,
per-action counts, the usage ledger and paired comparisons."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import pairwise
from math import comb

import numpy as np
import pytest
from fixtures.make_runs import record
from hypothesis import given
from hypothesis import strategies as st

from tau2.episode import Mode
from tau2.errors import UserInputError
from tau2.metrics import (
    Bootstrap,
    PairBy,
    TaskCounts,
    TaskOutcome,
    action_stats,
    breakdowns,
    estimate,
    flip_sets,
    flip_summary,
    pair_key,
    pair_outcomes,
    paired_breakdowns,
    paired_curve,
    paired_pass_hat_k,
    pass_hat_k,
    pass_hat_k_curve,
    pass_hat_k_estimates,
    pass_hat_k_table,
    seat_usage,
    task_outcomes,
    termination_counts,
)
from tau2.metrics import bootstrap as bootstrap_module
from tau2.metrics.bootstrap import rate_estimate, resampled_means, wilson
from tau2.world import Side

FAST = Bootstrap(samples=200, seed=3)


def outcome(task_id: str, trials: int, successes: int, **attributes: object) -> TaskOutcome:
    """A task outcome with default grouping attributes."""
    fields: dict[str, object] = {"intent": None, "subtasks": 1, "persona": None, "mode": "interactive"}
    fields.update(attributes)
    return TaskOutcome.model_validate(
        {"task_id": task_id, "trials": trials, "successes": successes, "excluded": 0, **fields}
    )


trial_counts = st.integers(min_value=1, max_value=12).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(min_value=0, max_value=n))
)


# --- pass^k ---


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (4, 2, 1, Fraction(1, 2)),
        (4, 2, 2, Fraction(1, 6)),
        (4, 2, 3, Fraction(0)),
        (4, 3, 2, Fraction(1, 2)),
        (5, 4, 3, Fraction(2, 5)),
        (3, 3, 3, Fraction(1)),
    ],
)
def test_pass_hat_k_hand_values(n: int, c: int, k: int, expected: Fraction) -> None:
    assert pass_hat_k(n, c, k) == pytest.approx(float(expected))


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 0), (3, 1, 4), (3, 4, 1), (0, 0, 1)])
def test_pass_hat_k_rejects_impossible_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


@given(trial_counts)
def test_pass_hat_k_is_monotone_bounded_and_starts_at_success_rate(counts: tuple[int, int]) -> None:
    n, c = counts
    values = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert values[0] == pytest.approx(c / n)
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(later <= earlier for earlier, later in pairwise(values))


@given(st.integers(min_value=1, max_value=12).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_pass_hat_k_is_one_when_all_succeed_and_zero_when_none(trials_and_k: tuple[int, int]) -> None:
    n, k = trials_and_k
    assert pass_hat_k(n, n, k) == 1.0
    assert pass_hat_k(n, 0, k) == 0.0


@given(st.integers(min_value=1, max_value=6), st.lists(st.integers(min_value=0, max_value=6), min_size=1))
def test_curve_with_equal_trials_is_monotone_and_its_first_point_is_the_mean_success_rate(
    n: int, raw: list[int]
) -> None:
    outcomes = [outcome(f"t{i}", n, min(c, n)) for i, c in enumerate(raw)]
    curve = pass_hat_k_curve(outcomes, n, FAST)
    values = [e.value for e in curve.values()]
    assert list(curve) == [str(k) for k in range(1, n + 1)]
    assert values[0] == pytest.approx(sum(o.successes for o in outcomes) / (n * len(outcomes)))
    assert all(v is not None and 0.0 <= v <= 1.0 for v in values)
    assert all(b <= a for a, b in pairwise(values))


def test_curve_leaves_out_tasks_with_fewer_than_k_valid_trials() -> None:
    curve = pass_hat_k_curve([outcome("a", 4, 2), outcome("b", 2, 2)], 4, FAST)
    assert curve["2"].value == pytest.approx((1 / 6 + 1) / 2)
    assert curve["2"].tasks == 2
    assert curve["3"].value == 0.0
    assert curve["3"].tasks == 1
    empty = pass_hat_k_curve([outcome("a", 0, 0)], 1, FAST)["1"]
    assert (empty.value, empty.ci_low, empty.ci_high, empty.tasks) == (None, None, None, 0)


@given(st.integers(min_value=1, max_value=60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_hat_k_table_agrees_with_exact_binomials(counts: tuple[int, int]) -> None:
    n, c = counts
    table = pass_hat_k_table(TaskCounts.from_counts([n, n + 3], [c, 0]), n + 2)
    for k in range(1, n + 1):
        exact = float(Fraction(comb(c, k), comb(n, k)))
        assert table[k - 1, 0] == pytest.approx(exact, rel=1e-12)
        assert pass_hat_k(n, c, k) == pytest.approx(exact, rel=1e-12)
    assert np.isnan(table[n:, 0]).all(), "a task with fewer than k trials has no pass^k"
    assert (table[:, 1] == 0.0).all()


def test_pass_hat_k_with_ten_thousand_trials_needs_no_big_binomials() -> None:
    n, c = 10_000, 9_000
    table = pass_hat_k_table(TaskCounts.from_counts([n], [c]), n)
    for k in (1, 2, 50, 500, 1000):
        assert table[k - 1, 0] == pytest.approx(float(Fraction(comb(c, k), comb(n, k))), rel=1e-9)
    assert table[c, 0] == 0.0 and table[n - 1, 0] == 0.0
    assert pass_hat_k(n, c, 1000) == pytest.approx(table[999, 0], rel=1e-12)


def test_task_counts_refuse_impossible_counts() -> None:
    for trials, successes in [([3], [4]), ([3], [-1]), ([3, 2], [1])]:
        with pytest.raises(ValueError):
            TaskCounts.from_counts(trials, successes)
    assert len(TaskCounts.of([outcome("a", 4, 2), outcome("b", 3, 3)])) == 2


def test_more_k_leaves_the_intervals_of_fewer_k_unchanged() -> None:
    """Each group of k that shares its tasks draws its resamples afresh from the seed, so asking for more
    k (or fewer) never moves an interval already shown."""
    rng = random.Random(4)
    counts = TaskCounts.from_counts([9] * 30 + [4] * 10, [rng.randint(0, 4) for _ in range(40)])
    few, many = pass_hat_k_estimates(counts, 3, FAST), pass_hat_k_estimates(counts, 9, FAST)
    assert few == {k: many[k] for k in few}
    assert [many[k].tasks for k in many] == [40] * 4 + [30] * 5


# --- bootstrap ---


def test_resamples_depend_only_on_the_seed_and_the_number_of_tasks() -> None:
    rng = random.Random(3)
    values = np.array([[rng.random() for _ in range(25)] for _ in range(3)])
    together = resampled_means(values, FAST)
    assert together.shape == (3, FAST.samples)
    assert (resampled_means(values[1:2], FAST)[0] == together[1]).all()
    assert not (resampled_means(values[1:2], Bootstrap(samples=200, seed=-3))[0] == together[1]).all()


def test_resamples_drawn_in_blocks_fill_every_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap_module, "_BLOCK_VALUES", 60)
    values = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]])
    means = resampled_means(values, Bootstrap(samples=37, seed=1))
    assert means.shape == (1, 37) and ((means >= 0.0) & (means <= 10.0)).all()
    assert len(set(means[0].tolist())) > 10, "every block draws afresh"


def test_bootstrap_is_deterministic_for_a_seed_and_contains_the_mean() -> None:
    rng = random.Random(1)
    values = [rng.random() for _ in range(50)]
    first, again = estimate(values, Bootstrap(seed=5)), estimate(values, Bootstrap(seed=5))
    other = estimate(values, Bootstrap(seed=6))
    assert first == again
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)
    assert first.ci_low is not None and first.ci_high is not None and first.value is not None
    assert first.ci_low < first.value < first.ci_high


def test_bootstrap_interval_of_a_constant_is_that_constant() -> None:
    e = estimate([1.0] * 7, FAST)
    assert (e.value, e.ci_low, e.ci_high) == (1.0, 1.0, 1.0)


def test_bootstrap_interval_narrows_with_more_tasks_and_widens_with_level() -> None:
    rng = random.Random(2)
    small = estimate([float(rng.random() < 0.5) for _ in range(20)], FAST)
    large = estimate([float(rng.random() < 0.5) for _ in range(400)], FAST)
    wide = estimate(
        [float(rng.random() < 0.5) for _ in range(20)], Bootstrap(samples=200, seed=3, level=0.99)
    )
    assert small.ci_high - small.ci_low > large.ci_high - large.ci_low
    assert wide.ci_high - wide.ci_low > 0


def test_bootstrap_interval_covers_the_true_rate_about_as_often_as_its_level() -> None:
    rng = random.Random(11)
    true_rate, covered, repetitions = 0.6, 0, 100
    for repetition in range(repetitions):
        values = [float(rng.random() < true_rate) for _ in range(80)]
        e = estimate(values, Bootstrap(samples=300, seed=repetition))
        covered += e.ci_low <= true_rate <= e.ci_high
    assert 0.85 <= covered / repetitions <= 1.0


# --- per-task outcomes, flips, breakdowns ---


def test_task_outcomes_exclude_infrastructure_errors_and_count_flips() -> None:
    records = [
        record("[a]x[PERSONA:None]", 0, Mode.INTERACTIVE, True),
        record("[a]x[PERSONA:None]", 1, Mode.INTERACTIVE, None),
        record("[a]x[PERSONA:None]", 2, Mode.INTERACTIVE, False),
        record("[b]x|y[PERSONA:Hard]", 0, Mode.INTERACTIVE, True),
    ]
    first, second = task_outcomes(records)
    assert (first.trials, first.successes, first.excluded) == (2, 1, 1)
    assert (first.intent, first.subtasks, first.persona) == ("a", 1, "None")
    assert first.pass_1 == 0.5
    assert first.flip_rate == 1.0
    assert (second.subtasks, second.flip_rate) == (2, None)
    summary = flip_summary([first, second])
    assert (summary.tasks, summary.flipping, summary.rate) == (1, 1, 1.0)
    assert termination_counts(records) == {"user_stop": 3, "infrastructure_error": 1}


def test_flip_rate_per_task_is_the_chance_two_trials_disagree() -> None:
    assert outcome("t", 4, 2).flip_rate == pytest.approx(4 / 6)
    assert outcome("t", 4, 4).flip_rate == 0.0
    assert outcome("t", 4, 1).model_dump()["flip_rate"] == pytest.approx(3 / 6)


def test_breakdowns_group_tasks_and_order_numeric_groups_numerically() -> None:
    outcomes = [
        outcome("a", 2, 2, intent="mms", subtasks=10),
        outcome("b", 2, 0, intent="data", subtasks=2),
        outcome("c", 2, 1, intent=None, subtasks=2, persona="Hard"),
    ]
    groups = breakdowns(outcomes, 2, FAST)
    assert [g.key for g in groups["subtasks"]] == ["2", "10"]
    assert [g.key for g in groups["intent"]] == ["(none)", "data", "mms"]
    two = groups["subtasks"][0]
    assert (two.tasks, two.trials, two.successes) == (2, 4, 1)
    assert two.pass_hat_k["1"].value == pytest.approx(0.25)
    assert [g.key for g in groups["persona"]] == ["(none)", "Hard"]


# --- actions and usage ---


def test_action_stats_count_performed_and_right_seat_over_valid_records() -> None:
    records = [
        record("t", trial, Mode.INTERACTIVE, outcome) for trial, outcome in enumerate([True, False, None])
    ]
    lookup, toggle = action_stats(records)
    assert (lookup.name, lookup.expected, lookup.performed, lookup.by_right_seat) == (
        "get_customer_by_phone",
        2,
        2,
        2,
    )
    assert (toggle.side, toggle.performed, toggle.performed_rate, toggle.right_seat_rate) == (
        Side.USER,
        1,
        0.5,
        0.5,
    )


def test_seat_usage_shows_unpriced_seats_as_unknown_cost() -> None:
    records = [record("t", trial, Mode.INTERACTIVE, True) for trial in range(3)]
    agent, user = seat_usage(records)
    assert (agent.seat, agent.simulations, agent.calls, agent.prompt_tokens) == (Side.AGENT, 3, 9, 3000)
    assert agent.cost == pytest.approx(0.003)
    assert agent.unpriced == 0
    assert (user.cost, user.unpriced) == (None, 3)
    assert [u.seat for u in seat_usage([record("t", 0, Mode.SOLO, True)])] == [Side.AGENT]


# --- paired comparisons ---


def test_pair_key_strips_only_a_trailing_persona_part() -> None:
    assert pair_key("[i]a|b[PERSONA:Easy]", PairBy.COMPOSITION) == "[i]a|b"
    assert pair_key("[i]a|b[PERSONA:Easy]", PairBy.TASK) == "[i]a|b[PERSONA:Easy]"
    assert pair_key("plain", PairBy.COMPOSITION) == "plain"


def test_paired_curve_hand_values_and_flips() -> None:
    a = [outcome("x", 4, 4), outcome("y", 4, 2), outcome("z", 4, 0), outcome("only_a", 4, 4)]
    b = [outcome("y", 4, 4), outcome("x", 4, 4), outcome("z", 2, 1)]
    pairs = pair_outcomes(a, b, PairBy.TASK)
    assert [p.key for p in pairs] == ["x", "y", "z"]
    curve = paired_curve(pairs, 4, FAST)
    assert (curve["1"].a, curve["1"].b, curve["1"].tasks) == (pytest.approx(0.5), pytest.approx(5 / 6), 3)
    assert curve["1"].diff == pytest.approx(1 / 3)
    assert (curve["2"].diff, curve["2"].tasks) == (pytest.approx((5 / 6) / 3), 3)
    assert (curve["3"].diff, curve["3"].tasks) == (pytest.approx(1 / 2), 2)
    flips = flip_sets(pairs)
    assert (flips["majority"].gained, flips["majority"].lost) == (["y"], [])
    assert (flips["all_trials"].gained, flips["all_trials"].lost) == (["y"], [])


@given(st.lists(trial_counts, min_size=1, max_size=8))
def test_comparing_a_run_with_itself_gives_zero_difference(counts: list[tuple[int, int]]) -> None:
    outcomes = [outcome(f"t{i}", n, c) for i, (n, c) in enumerate(counts)]
    curve = paired_curve(pair_outcomes(outcomes, outcomes, PairBy.TASK), 3, FAST)
    for e in curve.values():
        assert e.diff in (0.0, None)
        if e.diff is not None:
            assert e.ci_low is not None and e.ci_high is not None
            assert e.ci_low == pytest.approx(-e.ci_high) and e.ci_low < 0 < e.ci_high, "never certainty"
    assert all(
        not s.gained and not s.lost
        for s in flip_sets(pair_outcomes(outcomes, outcomes, PairBy.TASK)).values()
    )


def test_composition_pairing_matches_personas_and_refuses_ambiguous_runs() -> None:
    easy = [outcome("[i]a[PERSONA:Easy]", 2, 2, persona="Easy")]
    hard = [outcome("[i]a[PERSONA:Hard]", 2, 0, persona="Hard")]
    assert pair_outcomes(easy, hard, PairBy.TASK) == []
    (pair,) = pair_outcomes(easy, hard, PairBy.COMPOSITION)
    assert pair.key == "[i]a"
    groups = paired_breakdowns([pair], 2, FAST)
    assert [g.key for g in groups["persona"]] == ["Easy → Hard"]
    assert groups["persona"][0].pass_hat_k["1"].diff == -1.0
    with pytest.raises(UserInputError, match="same composition"):
        pair_outcomes([*easy, *hard], hard, PairBy.COMPOSITION)


def test_all_pass_intervals_do_not_collapse_to_certainty() -> None:
    estimate = rate_estimate([1.0] * 159, Bootstrap(samples=200))
    assert estimate.value == 1.0 and estimate.ci_high == 1.0
    assert estimate.ci_low == pytest.approx(wilson(1.0, 159, 0.95)[0]) and 0.97 < estimate.ci_low < 0.99


def test_paired_intervals_of_each_side_are_its_single_run_intervals() -> None:
    rng = random.Random(8)
    a = TaskCounts.from_counts([4] * 30, [rng.randint(0, 4) for _ in range(30)])
    b = TaskCounts.from_counts([4] * 30, [rng.randint(0, 4) for _ in range(30)])
    paired, alone_a, alone_b = (
        paired_pass_hat_k(a, b, 4, FAST),
        pass_hat_k_estimates(a, 4, FAST),
        pass_hat_k_estimates(b, 4, FAST),
    )
    for k, e in paired.items():
        assert (e.a, e.a_low, e.a_high) == (alone_a[k].value, alone_a[k].ci_low, alone_a[k].ci_high)
        assert (e.b, e.b_low, e.b_high) == (alone_b[k].value, alone_b[k].ci_low, alone_b[k].ci_high)
        assert e.ci_low is not None and e.ci_high is not None and e.diff is not None
        assert e.ci_low <= e.diff <= e.ci_high
    with pytest.raises(ValueError, match="as many tasks"):
        paired_pass_hat_k(a, TaskCounts.from_counts([4], [1]), 4, FAST)


@pytest.mark.parametrize("levels", [[0.0, 1.0], [0.0, 0.25, 0.5, 1.0]])
def test_resampling_by_counts_of_values_matches_resampling_tasks(levels: list[float]) -> None:
    """A series with few distinct values is resampled as counts of each value (a multinomial): its means
    must be distributed as those of resampling the tasks themselves (same centre, same spread)."""
    rng = np.random.default_rng(5)
    values = rng.choice(
        levels, size=400, p=np.linspace(1, 2, len(levels)) / np.linspace(1, 2, len(levels)).sum()
    )
    settings = Bootstrap(samples=20_000, seed=3)
    by_counts = resampled_means(values.reshape(1, -1), settings)[0]
    drawn = np.random.default_rng(11).integers(0, len(values), size=(20_000, len(values)))
    by_tasks = values.take(drawn).mean(axis=1)
    assert len(levels) * bootstrap_module._TASKS_PER_LEVEL <= len(values), (
        "the counting path is the one tested"
    )
    assert by_counts.mean() == pytest.approx(by_tasks.mean(), abs=0.002)
    assert by_counts.std() == pytest.approx(by_tasks.std(), rel=0.03)
    for q in (0.025, 0.975):
        assert np.quantile(by_counts, q) == pytest.approx(np.quantile(by_tasks, q), abs=0.005)
