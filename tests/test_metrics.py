"""Metrics: the pass^k estimator (hand values and properties), bootstrap intervals, flips, breakdowns,
per-action counts, the usage ledger and paired comparisons."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import pairwise

import pytest
from fixtures.make_runs import record
from hypothesis import given
from hypothesis import strategies as st

from tau2.episode import Mode
from tau2.errors import UserInputError
from tau2.metrics import (
    Bootstrap,
    PairBy,
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
    pass_hat_k,
    pass_hat_k_curve,
    seat_usage,
    task_outcomes,
    termination_counts,
)
from tau2.metrics.bootstrap import rate_estimate, wilson
from tau2.world._tools import Side

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


# --- bootstrap ---


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
