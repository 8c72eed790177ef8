"""The Gymnasium seat environment: Gymnasium's own checker on every installed domain and seat, episodes
driven by a learner that plays the oracle's or the scripted user's part, seeding and the action protocol."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium", reason="the `gym` extra (gymnasium) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from tau2 import available_domains  # noqa: E402
from tau2.actors._requests import RESOLVED_PHRASE, format_request  # noqa: E402
from tau2.interfaces import message_action, stop_action, tool_call_action  # noqa: E402
from tau2.interfaces.gymnasium_env import Tau2SeatEnv, env_id, register_envs  # noqa: E402
from tau2.llm import ModelSpec  # noqa: E402
from tau2.world._tools import Side  # noqa: E402


@pytest.mark.parametrize("seat", list(Side), ids=str)
@pytest.mark.parametrize("domain", available_domains())
def test_check_env_passes_on_the_registered_id(domain: str, seat: Side) -> None:
    env = gymnasium.make(env_id(domain, seat))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are failures too
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_every_domain_and_seat_is_registered() -> None:
    ids = register_envs()
    assert {env_id(domain, seat) for domain in available_domains() for seat in Side} == set(ids)
    assert all(name in gymnasium.registry for name in ids)


def test_learner_agent_following_the_solution_is_rewarded_at_the_end() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="both")
    observation, info = env.reset(seed=1)
    assert json.loads(observation)[-1] == {"kind": "message", "seat": "user", "text": "My lamp is dark."}
    assert "enable_power" in {schema["function"]["name"] for schema in info["tool_schemas"]}
    assert "Check the account first" in info["brief"]
    actions = [
        tool_call_action("enable_power", {"customer": "Ada"}),
        message_action(format_request("plug_in", {})),
        message_action(RESOLVED_PHRASE),
    ]
    rewards = []
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
    assert rewards == [0.0, 0.0, 1.0]
    assert terminated and not truncated
    assert info["termination"] == "user_stop"
    assert json.loads(observation)[-1]["text"] == "Great, thank you for your help!"
    assert env.result is not None and env.result.reward == 1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(message_action("hello?"))
    env.close()


def test_tool_results_reach_only_the_seat_that_called() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="power_cut")
    env.reset(seed=0)
    observation, *_ = env.step(tool_call_action("get_account", {"customer": "Ada"}))
    kinds = [(entry["seat"], entry["kind"]) for entry in json.loads(observation)]
    assert kinds == [("agent", "tool_call"), ("agent", "tool_result")]
    observation, *_ = env.step(message_action(format_request("look_at_lamp", {})))
    seen = json.loads(observation)
    assert all(entry["kind"] == "message" for entry in seen if entry["seat"] == "user")
    env.close()


def test_learner_user_stops_the_call() -> None:
    env = Tau2SeatEnv("mock", "user", task_id="unplugged")
    env.reset(seed=0)
    observation, *_ = env.step("My lamp is dark.")
    assert "plug_in" in observation
    env.step(tool_call_action("plug_in"))
    observation, reward, terminated, _, _ = env.step("Done, it is lit now.")
    assert RESOLVED_PHRASE in observation and reward == 0.0 and not terminated
    _, reward, terminated, _, info = env.step(stop_action("Bye!"))
    assert (reward, terminated, info["termination"]) == (1.0, True, "user_stop")
    env.close()


def test_malformed_json_action_is_shown_back_as_an_actor_error() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    env.reset(seed=0)
    observation, reward, terminated, *_ = env.step('{"tool_calls": [{"nam": "x"}]}')
    assert json.loads(observation) == [
        {
            "kind": "actor_error",
            "seat": "agent",
            "text": "tool_calls[0] must be an object with a string `name`",
        }
    ]
    assert (reward, terminated) == (0.0, False)
    env.close()


def test_seeded_reset_picks_the_same_task_and_options_select_one() -> None:
    env = Tau2SeatEnv("telecom", "agent", suite="small")
    picks = [env.reset(seed=seed)[1]["task_id"] for seed in (5, 6, 5)]
    assert picks[0] == picks[2]
    _, info = env.reset(options={"task_id": picks[1], "persona": "hard"})
    assert info["task_id"] == picks[1]
    assert env.task.persona is not None
    env.close()


def test_solo_mode_plays_the_ticket_alone() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged", mode="solo")
    observation, info = env.reset(seed=0)
    assert observation == "[]" and "Ticket:" in info["brief"]
    env.step(tool_call_action("plug_in"))
    _, reward, terminated, _, info = env.step(tool_call_action("done"))
    assert (reward, terminated, info["termination"]) == (1.0, True, "agent_stop")
    env.close()


def test_step_limit_truncates() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged", max_steps=4)
    env.reset(seed=0)
    env.step("Hello")
    _, reward, terminated, truncated, info = env.step("Hello again")
    assert (reward, terminated, truncated, info["termination"]) == (0.0, False, True, "max_steps")
    env.close()


def test_user_seat_has_no_solo_mode() -> None:
    from tau2.errors import UserInputError

    with pytest.raises(UserInputError, match="solo mode has no user seat"):
        Tau2SeatEnv("mock", "user", mode="solo")


def test_an_llm_other_seat_works_from_synchronous_code() -> None:
    """The other seat is an asynchronous LLM actor (served by the scripted OpenAI-compatible server); the
    training loop below stays plain synchronous code."""
    from tau2.episode._actor import ActorSpec
    from tau2.testing import Reply, ScriptedOpenAIServer

    script = [
        Reply.text("Hi, my lamp is dark."),
        Reply.tool_call("plug_in", {}),
        Reply.text("It is lit now."),
        Reply.tool_call("end_call", {}, content="Thanks, bye!"),
    ]
    with ScriptedOpenAIServer(script) as server:
        model = ModelSpec(name="openai/test-user", api_base=server.base_url, args={"api_key": "k"})
        spec = ActorSpec(kind="llm", model=model)
        env = Tau2SeatEnv("mock", "agent", task_id="unplugged", other=spec)
        observation, _ = env.reset(seed=0)
        assert "Hi, my lamp is dark." in observation
        observation, *_ = env.step("Please plug the lamp in.")
        assert "It is lit now." in observation and "plug_in" not in observation  # the user's call is hidden
        _, reward, terminated, _, info = env.step("Glad it works!")
        env.close()
    assert (reward, terminated, info["termination"]) == (1.0, True, "user_stop")
    assert server.request_count == 4


def test_an_episode_the_other_seat_ends_at_once_is_over_after_reset() -> None:
    """A customer who hangs up before the agent's first turn: reset reports the outcome, step refuses."""
    from tau2.episode._actor import ActorTurn, SeatContext
    from tau2.episode._trajectory import Entry

    class HangsUp:
        async def start(self, context: SeatContext) -> None:
            return None

        async def act(self, observation: list[Entry]) -> ActorTurn:
            return ActorTurn(text="Never mind.", stop=True)

    env = Tau2SeatEnv("mock", "agent", task_id="unplugged", other=HangsUp())
    observation, info = env.reset(seed=0)
    assert info["termination"] == "user_stop" and "Never mind." in observation
    with pytest.raises(RuntimeError, match="reset"):
        env.step("Hello?")
    env.close()


ACTIONS = [
    "Hello, how can I help?",
    tool_call_action("get_account", {"customer": "Ada"}),
    tool_call_action("enable_power", {"customer": "Ada"}),
    tool_call_action("plug_in"),
    tool_call_action("look_at_lamp"),
    message_action(format_request("plug_in", {})),
    message_action(RESOLVED_PHRASE),
    stop_action("Bye"),
    '{"tool_calls": "nope"}',
    "{not json",
]


@settings(max_examples=40, deadline=None)
@given(
    seat=st.sampled_from(list(Side)),
    task_id=st.sampled_from(["unplugged", "power_cut", "both", "whitelisted", "needs_human"]),
    actions=st.lists(st.sampled_from(ACTIONS), min_size=12, max_size=12),
)
def test_observations_add_up_to_exactly_the_seats_view(seat: Side, task_id: str, actions: list[str]) -> None:
    """Whatever the learner does, the observations it receives (reset, every step, the end) are the
    entries its seat may see, each once and in order: the orchestrator's partial observability, intact."""
    from tau2.interfaces._actions import entry_view

    env = Tau2SeatEnv("mock", seat, task_id=task_id, max_steps=12)  # every learner action is a step
    observation, _ = env.reset(seed=1)
    seen = json.loads(observation)
    for action in actions:
        if env.result is not None:
            break
        observation, *_ = env.step(action)
        seen += json.loads(observation)
    result = env.result
    env.close()
    assert result is not None
    assert seen == [entry_view(entry) for entry in result.trajectory.view(seat)]
    assert all(entry["seat"] == seat.value for entry in seen if entry["kind"] != "message")
