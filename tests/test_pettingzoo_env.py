"""The PettingZoo AEC environment: PettingZoo's API and seed tests on every installed domain, both modes,
and a cooperative episode where two scripted policies drive both seats to the reward."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pettingzoo", reason="the `pettingzoo` extra is not installed")

from pettingzoo.test import api_test, seed_test

from tau2 import available_domains
from tau2.actors.requests import RESOLVED_PHRASE, format_request
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
