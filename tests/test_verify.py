"""Task verification, initialisation and assertions on mock-domain tasks, one per rule."""

from __future__ import annotations

from typing import Any

import pytest

from tau2.domains.mock.tasks import CUT_POWER, DARK, ENABLE_POWER, LIT, PLUG_IN, TRANSFER, UNPLUG
from tau2.episode import verify_task
from tau2.tasks import (
    AssertionCall,
    EnvCall,
    Evaluation,
    InitialData,
    SolutionStep,
    Task,
    TaskSetupError,
    UserScenario,
    all_passed,
    initialize_world,
    run_assertions,
)
from tau2.tasks._assertions import AssertionOutcome
from tau2.world import Side


def make_task(
    initialization: list[EnvCall],
    solution: list[SolutionStep],
    assertions: list[AssertionCall] | None = None,
    *,
    expects_transfer: bool = False,
    **fields: Any,
) -> Task:
    return Task(
        id="t",
        domain="mock",
        user_scenario=UserScenario(instructions="Your lamp is dark."),
        initialization=initialization,
        evaluation=Evaluation(
            assertions=[LIT] if assertions is None else assertions,
            solution=solution,
            expects_transfer=expects_transfer,
        ),
        **fields,
    )


def reason_of(task: Task) -> str | None:
    verification = verify_task(task)
    assert verification.task_id == task.id
    assert verification.valid is (verification.reason is None)
    return verification.reason


def test_fix_task_that_needs_both_seats_is_valid() -> None:
    assert reason_of(make_task([UNPLUG, CUT_POWER], [PLUG_IN, ENABLE_POWER])) is None


def test_transfer_task_is_valid_when_assertions_hold_and_a_transfer_is_expected() -> None:
    task = make_task([UNPLUG], [TRANSFER], [DARK], expects_transfer=True)
    assert reason_of(task) is None


def test_assertions_already_passing_after_initialisation() -> None:
    assert reason_of(make_task([], [PLUG_IN])) == "assertions already pass after initialisation"


def test_assertions_passing_before_the_last_action() -> None:
    reason = reason_of(make_task([UNPLUG], [PLUG_IN, ENABLE_POWER]))
    assert reason == "assertions already pass after action 1 of 2 (plug_in)"


def test_assertions_failing_after_all_actions() -> None:
    reason = reason_of(make_task([UNPLUG, CUT_POWER], [PLUG_IN]))
    assert reason == (
        "assertions fail after action 1 of 1 (plug_in): "
        "u.assert_lamp_lit(expected_status=True) returned False, expected True"
    )


def test_failing_reference_action() -> None:
    bad = ENABLE_POWER.model_copy(update={"arguments": {"customer": "Bob"}})
    reason = reason_of(make_task([UNPLUG, CUT_POWER], [PLUG_IN, bad]))
    assert reason == "action 2 of 2 (enable_power) failed: not_found: no account for 'Bob'"


def test_reference_action_of_the_wrong_seat_fails() -> None:
    wrong_seat = PLUG_IN.model_copy(update={"side": Side.AGENT})
    reason = reason_of(make_task([UNPLUG], [wrong_seat]))
    assert reason == "evaluation.solution[0]: no agent tool named 'plug_in'"


def test_failing_init_call() -> None:
    bad = EnvCall(side=Side.AGENT, name="enable_power", arguments={"customer": "Bob"})
    reason = reason_of(make_task([UNPLUG, bad], [PLUG_IN]))
    assert (
        reason == "init call 2 of 2 failed: a.enable_power(customer='Bob'): not_found: no account for 'Bob'"
    )


def test_transfer_task_without_a_transfer_action() -> None:
    reason = reason_of(make_task([UNPLUG], [PLUG_IN], [DARK], expects_transfer=True))
    assert reason == "a transfer is expected but no reference action calls transfer_to_human_agents"


def test_transfer_task_whose_assertions_fail() -> None:
    reason = reason_of(make_task([UNPLUG], [TRANSFER], [LIT], expects_transfer=True))
    assert reason == (
        "assertions fail after initialisation: "
        "u.assert_lamp_lit(expected_status=True) returned False, expected True"
    )


def test_fix_task_without_assertions_or_actions() -> None:
    assert reason_of(make_task([UNPLUG], [PLUG_IN], [])) == (
        "no assertions: nothing decides whether the task is solved"
    )
    assert reason_of(make_task([UNPLUG], [])) == "no reference actions"


def test_assertion_missing_an_argument_is_a_structural_problem() -> None:
    broken = AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={})
    reason = reason_of(make_task([UNPLUG], [PLUG_IN], [broken]))
    assert reason == "evaluation.assertions[0].arguments: assert_lamp_lit: expected_status: Field required"


def test_initial_data_patches_need_a_domain_hook() -> None:
    task = make_task(
        [UNPLUG], [PLUG_IN], initial_data=InitialData(user_data={"lamp": {"switched_on": False}})
    )
    assert reason_of(task) == "domain 'mock' does not support initial data patches"
    with pytest.raises(TaskSetupError, match=r"^task 't': domain 'mock' does not support"):
        initialize_world(task)


def test_empty_initial_data_needs_no_hook() -> None:
    task = make_task([UNPLUG], [PLUG_IN], initial_data=InitialData())
    assert reason_of(task) is None


def test_run_assertions_reports_each_outcome() -> None:
    world = initialize_world(make_task([UNPLUG], [PLUG_IN]))
    unknown = AssertionCall(side=Side.AGENT, name="assert_nothing")
    outcomes = run_assertions(world, [LIT, DARK, unknown])
    assert [outcome.passed for outcome in outcomes] == [False, True, False]
    assert outcomes[0] == AssertionOutcome(call=LIT, expected=True, actual=False, passed=False)
    assert outcomes[2].actual is None
    assert outcomes[2].error == "unknown_tool: no agent env function named 'assert_nothing'"
    assert all_passed(world, [DARK])
    assert not all_passed(world, [DARK, LIT])
    assert not all_passed(world, [DARK, unknown])  # an erroring assertion never passes
    not_a_bool = AssertionCall(side=Side.USER, name="look_at_lamp", expected=True)
    assert not all_passed(world, [not_a_bool])  # a non-boolean result never passes


def test_assert_value_false_passes_when_the_function_returns_false() -> None:
    world = initialize_world(make_task([UNPLUG], [PLUG_IN]))
    negated = LIT.model_copy(update={"expected": False})
    (outcome,) = run_assertions(world, [negated])
    assert outcome.passed and outcome.actual is False and outcome.expected is False


def test_non_boolean_assertion_result_does_not_pass() -> None:
    world = initialize_world(make_task([], [PLUG_IN]))
    not_an_assertion = AssertionCall(side=Side.USER, name="look_at_lamp")
    (outcome,) = run_assertions(world, [not_an_assertion])
    assert not outcome.passed
    assert outcome.error is not None and outcome.error.startswith("returned 'lit: yes")
