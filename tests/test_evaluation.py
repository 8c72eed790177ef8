"""Evaluation: the binary reward from gating checks, and the diagnostics recorded beside it."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from tau2.domains.mock.tasks import LIT, NEEDS_HUMAN, UNPLUGGED
from tau2.episode import Entry, EntryKind, TerminationReason, ToolCall, Trajectory, evaluate
from tau2.episode._evaluation import count_tool_errors, match_actions
from tau2.errors import ErrorCode
from tau2.llm import Usage
from tau2.tasks import AssertionCall, Evaluation, SolutionStep, initialize_world
from tau2.world import Side, ToolResult

REFUEL = SolutionStep(
    side=Side.AGENT,
    name="refuel_data",
    arguments={"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0},
    action_id="refuel_data_0",
)


def tool_call(name: str, side: Side | None, **arguments: JsonValue) -> ToolCall:
    return ToolCall(call_id=f"{name}-{len(arguments)}", name=name, arguments=arguments, side=side)


def trajectory(
    *traffic: tuple[Side, ToolCall, ToolResult],
    termination: TerminationReason = TerminationReason.USER_STOP,
    usage: dict[Side, Usage] | None = None,
) -> Trajectory:
    """A trajectory made of (seat, call, result) exchanges."""
    entries: list[Entry] = []
    for seat, call, result in traffic:
        entries.append(Entry(index=len(entries), seat=seat, kind=EntryKind.TOOL_CALL, tool_call=call))
        entries.append(
            Entry(index=len(entries), seat=seat, kind=EntryKind.TOOL_RESULT, tool_call=call, result=result)
        )
    return Trajectory(entries=entries, termination=termination, steps=len(traffic), usage=usage or {})


OK = ToolResult.success("ok")
FAILED = ToolResult.failure(ErrorCode.NOT_FOUND, "nope")


def records(step: SolutionStep, *calls: ToolCall) -> tuple[bool, bool]:
    [record] = match_actions([step], list(calls))
    assert (record.action_id, record.name, record.side) == (step.action_id, step.name, step.side)
    return record.performed, record.by_right_seat


def test_all_reference_arguments_are_compared_by_default() -> None:
    same = tool_call("refuel_data", Side.AGENT, customer_id="C1001", line_id="L1002", gb_amount=2)
    other = tool_call("refuel_data", Side.AGENT, customer_id="C1001", line_id="L1002", gb_amount=1.0)
    extra = tool_call(
        "refuel_data", Side.AGENT, customer_id="C1001", line_id="L1002", gb_amount=2.0, note="x"
    )
    assert records(REFUEL, same) == (True, True)  # 2 equals 2.0
    assert records(REFUEL, other) == (False, False)
    assert records(REFUEL, extra) == (True, True)  # only the reference's arguments are compared
    assert records(REFUEL) == (False, False)


def test_compare_args_selects_arguments_and_empty_means_name_only() -> None:
    amount_only = REFUEL.model_copy(update={"compare_args": ["gb_amount"]})
    name_only = REFUEL.model_copy(update={"compare_args": []})
    wrong_line = tool_call("refuel_data", Side.AGENT, customer_id="C1001", line_id="L9", gb_amount=2.0)
    assert records(amount_only, wrong_line) == (True, True)
    assert records(name_only, tool_call("refuel_data", Side.AGENT)) == (True, True)
    assert records(name_only, tool_call("enable_roaming", Side.AGENT)) == (False, False)


def test_booleans_are_not_numbers() -> None:
    step = SolutionStep(side=Side.USER, name="set", arguments={"flag": True}, action_id="set_0")
    assert records(step, tool_call("set", Side.USER, flag=1)) == (False, False)
    assert records(step, tool_call("set", Side.USER, flag=True)) == (True, True)


def test_the_seat_that_acted_is_diagnosed() -> None:
    step = SolutionStep(side=Side.USER, name="toggle_roaming", action_id="toggle_roaming_0")
    refused = tool_call("toggle_roaming", None)  # the agent tried it in interactive mode: wrong seat
    on_phone = tool_call("toggle_roaming", Side.USER)  # the user, or a solo agent acting on the phone
    assert records(step, refused) == (True, False)
    assert records(step, refused, on_phone) == (True, True)


def test_reward_needs_every_assertion_on_the_final_world() -> None:
    world = initialize_world(UNPLUGGED)
    before = evaluate(UNPLUGGED, world, trajectory())
    assert before.reward == 0.0 and not before.assertions_passed
    assert before.assertions[0].name == "assert_lamp_lit" and not before.assertions[0].passed
    assert world.call(Side.USER, "plug_in", {}).ok
    after = evaluate(UNPLUGGED, world, trajectory())
    assert after.reward == 1.0 and after.assertions_passed
    record = after.assertions[0]
    assert (record.side, record.arguments, record.expected, record.passed) == (
        Side.USER,
        {"expected_status": True},
        True,
        True,
    )


def test_a_broken_assertion_is_recorded_and_fails() -> None:
    task = UNPLUGGED.model_copy(
        update={
            "evaluation": Evaluation(assertions=[LIT, AssertionCall(side=Side.USER, name="assert_nothing")])
        }
    )
    world = initialize_world(task)
    world.call(Side.USER, "plug_in", {})
    result = evaluate(task, world, trajectory())
    assert [record.passed for record in result.assertions] == [True, False]
    assert result.assertions[1].error is not None
    assert result.reward == 0.0


def test_transfer_tasks_need_a_successful_agent_transfer() -> None:
    world = initialize_world(NEEDS_HUMAN)
    transfer = tool_call("transfer_to_human_agents", Side.AGENT, summary="help")
    assert evaluate(NEEDS_HUMAN, world, trajectory()).reward == 0.0
    failed = evaluate(NEEDS_HUMAN, world, trajectory((Side.AGENT, transfer, FAILED)))
    assert not failed.transferred and failed.reward == 0.0
    refused = tool_call("transfer_to_human_agents", None, summary="help")
    assert evaluate(NEEDS_HUMAN, world, trajectory((Side.USER, refused, OK))).reward == 0.0
    done = evaluate(NEEDS_HUMAN, world, trajectory((Side.AGENT, transfer, OK)))
    assert done.transferred and done.expects_transfer and done.reward == 1.0
    assert done.actions[0].performed and done.actions[0].by_right_seat


def test_diagnostics_never_gate() -> None:
    world = initialize_world(UNPLUGGED)
    world.call(Side.USER, "plug_in", {})
    wrong = tool_call("get_account", Side.AGENT, customer="Bob")
    transfer = tool_call("transfer_to_human_agents", Side.AGENT, summary="x")
    usage = {Side.AGENT: Usage(calls=2, prompt_tokens=30, cost=0.25), Side.USER: Usage(calls=1, cost=0.5)}
    played = trajectory((Side.AGENT, wrong, FAILED), (Side.AGENT, transfer, OK), usage=usage)
    result = evaluate(UNPLUGGED, world, played)
    assert result.reward == 1.0  # no reference action performed, a tool error, an unneeded transfer
    assert result.actions[0].performed is False
    assert result.tool_errors == 1
    assert played.total_usage == Usage(calls=3, prompt_tokens=30, cost=0.75)


@pytest.mark.parametrize("termination", list(TerminationReason))
def test_every_ending_is_scored_and_an_infrastructure_one_never_ends_properly(
    termination: TerminationReason,
) -> None:
    world = initialize_world(UNPLUGGED)
    result = evaluate(UNPLUGGED, world, trajectory(termination=termination))
    assert result.reward == 0.0
    assert not (termination.is_infrastructure and result.ended_properly)


def test_tool_errors_count_failed_results_of_both_seats() -> None:
    call = tool_call("plug_in", Side.USER)
    traffic = trajectory((Side.USER, call, FAILED), (Side.AGENT, call, FAILED), (Side.USER, call, OK))
    assert count_tool_errors(traffic) == 2
    assert len(traffic.tool_calls()) == 3  # result entries carry their call but are not calls


@pytest.mark.parametrize(
    "termination",
    [TerminationReason.MAX_STEPS, TerminationReason.TOO_MANY_ERRORS, TerminationReason.ACTOR_ERROR],
)
def test_an_episode_cut_off_scores_zero_but_keeps_its_raw_outcome(termination: TerminationReason) -> None:
    world = initialize_world(UNPLUGGED)
    assert world.call(Side.USER, "plug_in", {}).ok
    cut = evaluate(UNPLUGGED, world, trajectory(termination=termination))
    assert cut.reward == 0.0 and cut.outcome_passed and cut.assertions_passed and not cut.ended_properly
    finished = evaluate(UNPLUGGED, world, trajectory(termination=TerminationReason.USER_STOP))
    assert finished.reward == 1.0 and finished.outcome_passed and finished.ended_properly
