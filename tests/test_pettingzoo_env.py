"""The PettingZoo AEC environment: PettingZoo's API and seed tests on every installed domain, both modes,
and a cooperative episode where two scripted policies drive both seats to the reward."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo", reason="the `pettingzoo` extra is not installed")

from pettingzoo.test import api_test, seed_test

from tau2 import available_domains
from tau2.actors._requests import RESOLVED_PHRASE, format_request
from tau2.interfaces import message_action, pettingzoo_env, stop_action, tool_call_action


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", ["interactive", "solo"])
@pytest.mark.parametrize("domain", available_domains())
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
    from tau2.interfaces._actions import entry_view
    from tau2.world._tools import Side

    env = pettingzoo_env.raw_env(domain="mock", task_id=task_id, max_steps=12)
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
