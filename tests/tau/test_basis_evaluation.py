"""Reward-basis evaluation on our own airline and retail tasks: database match, communicated information,
action checks, the termination gate and the composition of the reward from the basis."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tau2 import EpisodeConfig, Task, Trajectory, World, evaluate, get_domain, load_task_file, make_actor
from tau2.actors._oracle import closing
from tau2.episode import (
    ActorSpec,
    Entry,
    EntryKind,
    Mode,
    TerminationReason,
    ToolCall,
    replay_reference,
    run_episode,
)
from tau2.episode._basis import action_matches, communicate_checks, reference_state
from tau2.tasks import RewardType, SolutionStep
from tau2.world import Side


def own_tasks(domain: str) -> dict[str, Task]:
    path = Path(get_domain(domain).default_suite)
    return {task.id: task for task in load_task_file(path)}


def message(index: int, seat: Side, text: str) -> Entry:
    return Entry(index=index, seat=seat, kind=EntryKind.MESSAGE, text=text)


def episode(task: Task, agent: str) -> tuple[float, list[tuple[RewardType, bool, bool | None]]]:
    result = asyncio.run(
        run_episode(
            task,
            make_actor(ActorSpec(kind=agent), Side.AGENT, Mode.INTERACTIVE),
            make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE),
            EpisodeConfig(seed=1),
        )
    )
    return result.reward, [(c.kind, c.gating, c.passed) for c in result.evaluation.checks]


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_oracle_passes_and_null_fails_every_own_task(domain: str) -> None:
    for task in own_tasks(domain).values():
        assert episode(task, "oracle")[0] == 1.0, task.id
        assert episode(task, "null")[0] == 0.0, task.id


def test_checks_keep_gating_and_diagnostic_kinds_apart() -> None:
    task = own_tasks("airline")["gift_card_balance"]
    reward, checks = episode(task, "null")
    assert reward == 0.0
    assert (RewardType.DB, True, True) in checks  # nothing changed: the database matches
    assert (RewardType.COMMUNICATE, True, False) in checks  # but the balance was never stated
    assert (RewardType.ACTION, False, False) in checks  # diagnostic only
    transfer = own_tasks("airline")["cancel_after_departure"]
    assert transfer.evaluation.reward_basis == [RewardType.DB, RewardType.ACTION]
    _, checks = episode(transfer, "oracle")
    assert {kind for kind, gating, _ in checks if gating} == {RewardType.DB, RewardType.ACTION}


def test_an_extra_change_anywhere_fails_the_database_match() -> None:
    task = own_tasks("airline")["add_bag"]
    world = replay_reference(task, None)
    trajectory = Trajectory(termination=TerminationReason.USER_STOP)
    assert evaluate(task, world, trajectory).reward == 1.0
    world.call(Side.AGENT, "send_certificate", {"user_id": "ines_okafor_1001", "amount": 50})
    assert evaluate(task, world, trajectory).reward == 0.0
    assert world.state != reference_state(task, None)


def test_only_finished_episodes_can_score() -> None:
    task = own_tasks("retail")["new_address"]
    world = replay_reference(task, None)
    for termination, reward in [
        (TerminationReason.USER_STOP, 1.0),
        (TerminationReason.AGENT_STOP, 1.0),
        (TerminationReason.TRANSFER, 1.0),
        (TerminationReason.MAX_STEPS, 0.0),
        (TerminationReason.TOO_MANY_ERRORS, 0.0),
    ]:
        assert evaluate(task, world, Trajectory(termination=termination)).reward == reward


def test_communicated_items_match_lower_cased_agent_text_without_commas() -> None:
    task = own_tasks("airline")["gift_card_balance"].model_copy(deep=True)
    evaluation = task.evaluation.model_copy(update={"communicate_info": ["1000", "Refund", "481.50"]})
    task = task.model_copy(update={"evaluation": evaluation})
    entries = [
        message(0, Side.AGENT, "Your REFUND of $1,000 is on its way."),
        message(1, Side.USER, "Is it 481.50?"),
        message(2, Side.AGENT, "It is $481.5."),
    ]
    checks = communicate_checks(task, Trajectory(entries=entries), gating=True)
    assert [check.passed for check in checks] == [True, True, False]


def test_actions_compare_the_keys_the_call_gave_unless_compare_args_says_otherwise() -> None:
    step = SolutionStep(side=Side.AGENT, name="cancel", arguments={"id": "A", "reason": "x"}, action_id="0")

    def call(**arguments: object) -> ToolCall:
        return ToolCall(call_id="c", name="cancel", arguments=arguments)  # type: ignore[arg-type]

    assert action_matches(step, call(id="A"))  # missing keys are not compared
    assert not action_matches(step, call(id="A", reason="x", extra=1))  # extra keys fail
    assert not action_matches(step, call(id="B"))
    assert action_matches(step.model_copy(update={"compare_args": []}), call(id="B"))
    assert action_matches(step.model_copy(update={"arguments": {"n": 1}}), call(n=1.0))
    listed = step.model_copy(update={"compare_args": ["id", "note"]})
    assert not action_matches(listed, call(id="A", note=None))  # a null the reference lacks differs
    assert action_matches(listed, call(id="A"))  # a key neither gives is equal


def test_oracle_closing_states_every_item() -> None:
    assert "277" in closing(["277"]) and "a; b" in closing(["a", "b"])


def test_worlds_of_the_reference_state_are_cached_per_task_content() -> None:
    task = own_tasks("retail")["swap_lamp"]
    assert reference_state(task, None) is reference_state(task, None)
    other = task.model_copy(update={"evaluation": task.evaluation.model_copy(update={"solution": []})})
    assert reference_state(other, None) == World.create(get_domain("retail")).state
