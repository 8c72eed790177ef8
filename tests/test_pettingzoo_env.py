"""The PettingZoo AEC environment: PettingZoo's API and seed tests on every installed domain, both modes,
and a cooperative episode where two scripted policies drive both seats to the reward."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shipped import SHIPPED_DOMAINS

pytest.importorskip("pettingzoo", reason="the `pettingzoo` extra is not installed")

from pettingzoo.test import api_test, seed_test

from tau2 import EpisodeConfig
from tau2.actors import RESOLVED_PHRASE, format_request
from tau2.rl import message_action, pettingzoo_env, stop_action, tool_call_action


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", ["interactive", "solo"])
@pytest.mark.parametrize("domain", SHIPPED_DOMAINS)
def test_api_and_seed_tests_pass(domain: str, mode: str) -> None:
    api_test(pettingzoo_env.env(domain=domain, mode=mode), num_cycles=60)
    seed_test(lambda: pettingzoo_env.env(domain=domain, mode=mode), num_cycles=30)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_env_with_no_arguments_runs_offline() -> None:
    env = pettingzoo_env.env()
    env.reset(seed=0)
    assert env.possible_agents == ["agent", "user"]
    assert env.agent_selection == "user"
    assert "Hi! How can I help you today?" in env.observe("user")
    env.close()


def test_the_episode_settings_are_one_configuration_whose_mode_the_mode_argument_replaces() -> None:
    solo = EpisodeConfig(mode="solo", max_steps=3)  # type: ignore[arg-type]
    assert pettingzoo_env.raw_env(domain="mock", config=solo).possible_agents == ["agent"]
    env = pettingzoo_env.raw_env(domain="mock", task_id="unplugged", mode="interactive", config=solo)
    assert env.possible_agents == ["agent", "user"]
    env.reset(seed=0)
    for _agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else message_action("Hello"))
    assert env.result is not None and env.result.termination.value == "max_steps"
    assert (env.result.config.mode.value, env.result.config.max_steps) == ("interactive", 3)


def test_both_seats_cooperate_to_the_reward() -> None:
    env = pettingzoo_env.raw_env(domain="mock", task_id="both")
    env.reset(seed=3)
    script = {
        "user": ["My lamp is dark.", tool_call_action("plug_in"), "Plugged in.", stop_action("Thanks!")],
        "agent": [
            tool_call_action("enable_power", {"customer": "Ada"}),
            message_action(format_request("plug_in", {})),
            message_action(RESOLVED_PHRASE),
        ],
    }
    order = []
    for agent in env.agent_iter():
        _, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert reward == 1.0 and info["termination"] == "user_stop"
            env.step(None)
            continue
        order.append(agent)
        env.step(script[agent].pop(0))
    assert order == ["user", "agent", "agent", "user", "user", "agent", "user"]
    assert env.result is not None and env.result.reward == 1.0
    env.close()


def test_each_seat_sees_only_its_own_tool_calls() -> None:
    env = pettingzoo_env.raw_env(domain="mock", task_id="power_cut")
    env.reset(seed=0)
    env.step("My lamp is dark.")
    env.step(tool_call_action("get_account", {"customer": "Ada"}))
    agent_view = json.loads(env.observe("agent"))
    assert [entry["kind"] for entry in agent_view] == ["tool_call", "tool_result"]
    env.step("Is the lamp plugged in?")
    user_view = json.loads(env.observe("user"))
    assert [(entry["seat"], entry["kind"]) for entry in user_view] == [
        ("user", "message"),
        ("agent", "message"),
    ]
    env.close()


def test_solo_mode_is_a_one_agent_game() -> None:
    env = pettingzoo_env.raw_env(domain="mock", mode="solo", task_id="unplugged")
    env.reset(seed=0)
    assert env.agents == ["agent"]
    env.step(tool_call_action("plug_in"))
    env.step(tool_call_action("done"))
    assert env.terminations == {"agent": True} and env.rewards == {"agent": 1.0}
    env.close()


@settings(max_examples=30, deadline=None)
@given(
    task_id=st.sampled_from(["unplugged", "power_cut", "both", "needs_human"]),
    actions=st.lists(
        st.sampled_from(
            [
                "Hello",
                tool_call_action("plug_in"),
                tool_call_action("enable_power", {"customer": "Ada"}),
                message_action(format_request("plug_in", {})),
                message_action(RESOLVED_PHRASE),
                stop_action(),
                "{bad",
            ]
        ),
        min_size=12,
        max_size=12,
    ),
)
def test_each_seat_observes_exactly_its_view(task_id: str, actions: list[str]) -> None:
    """Whatever both seats do, each seat's observations add up to its view of the trajectory."""
    from tau2.rl._actions import entry_view
    from tau2.world import Side

    env = pettingzoo_env.raw_env(domain="mock", task_id=task_id, config=EpisodeConfig(max_steps=12))
    env.reset(seed=0)
    seen: dict[str, list[object]] = {"agent": [], "user": []}
    pending = iter(actions)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        seen[agent] += json.loads(observation)
        env.step(None if terminated or truncated else next(pending))
    result = env.result
    env.close()
    assert result is not None
    for seat in Side:
        assert seen[seat.value] == [entry_view(entry) for entry in result.trajectory.view(seat)]


def test_the_raw_environment_before_reset_raises_one_clear_error() -> None:
    env = pettingzoo_env.raw_env(domain="mock", task_id="unplugged")
    for call in (lambda: env.step("Hello"), lambda: env.observe("user"), lambda: env.last()):
        with pytest.raises(RuntimeError, match=r"no game is on: call reset\(\) first"):
            call()
    env.close()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("make", [pettingzoo_env.raw_env, pettingzoo_env.env], ids=["raw", "wrapped"])
def test_after_every_agent_left_last_and_step_name_the_mistake(make: object) -> None:
    env = make(domain="mock", mode="solo", task_id="unplugged")  # type: ignore[operator]
    env.reset(seed=0)
    env.step(tool_call_action("done"))
    env.step(None)  # the agent leaves the finished game
    assert env.agents == []
    with pytest.raises(RuntimeError, match="every agent has left"):
        env.last()
    if make is pettingzoo_env.raw_env:
        with pytest.raises(RuntimeError, match="every agent has left"):
            env.step(None)
    assert "Episode ended." in env.observe("agent")  # its final observation stays readable
    env.reset(seed=0)
    assert env.agents == ["agent"]
    env.close()


@pytest.mark.parametrize("action", [7, b"hi", "x" * 4097])
def test_an_action_outside_the_action_space_is_refused_and_changes_nothing(action: object) -> None:
    env = pettingzoo_env.raw_env(domain="mock", task_id="unplugged")
    env.reset(seed=0)
    before = (env.agent_selection, env.observe("user"), dict(env.rewards))
    with pytest.raises(ValueError, match="an action"):
        env.step(action)  # type: ignore[arg-type]
    assert (env.agent_selection, env.observe("user"), dict(env.rewards)) == before
    env.step("My lamp is dark.")
    assert env.agent_selection == "agent" and "My lamp is dark." in env.observe("agent")
    env.close()


def test_deeply_nested_json_is_an_actor_error_turn() -> None:
    env = pettingzoo_env.raw_env(domain="mock", task_id="unplugged")
    env.reset(seed=0)
    env.step('{"message": ' + "[" * 1500 + "]" * 1500 + "}")
    assert env.agent_selection == "user"
    assert json.loads(env.observe("user"))[-1]["kind"] == "actor_error"
    env.close()


def test_a_refused_reset_option_does_not_stay_in_force() -> None:
    from tau2.errors import UserInputError

    env = pettingzoo_env.raw_env(domain="mock", task_id="unplugged")
    with pytest.raises(UserInputError, match="no_such_task"):
        env.reset(seed=0, options={"task_id": "no_such_task"})
    with pytest.raises(RuntimeError, match="reset"):
        env.step("Hello")
    env.reset(seed=0)
    assert env.task.id == "unplugged"
    env.close()
