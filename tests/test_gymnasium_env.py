"""The Gymnasium seat environment: Gymnasium's own checker on every installed domain and seat, episodes
driven by a learner that plays the oracle's or the scripted user's part, seeding and the action protocol."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shipped import SHIPPED_DOMAINS

gymnasium = pytest.importorskip("gymnasium", reason="the `gym` extra (gymnasium) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from tau2 import EpisodeConfig, available_domains  # noqa: E402
from tau2.actors import RESOLVED_PHRASE, format_request  # noqa: E402
from tau2.llm import ModelSpec  # noqa: E402
from tau2.rl import message_action, stop_action, tool_call_action  # noqa: E402
from tau2.rl.gymnasium_env import Tau2SeatEnv, env_id, register_envs  # noqa: E402
from tau2.world import Side  # noqa: E402


@pytest.mark.parametrize("seat", list(Side), ids=str)
@pytest.mark.parametrize("domain", SHIPPED_DOMAINS)
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
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged", config=EpisodeConfig(max_steps=4))
    env.reset(seed=0)
    env.step("Hello")
    _, reward, terminated, truncated, info = env.step("Hello again")
    assert (reward, terminated, truncated, info["termination"]) == (0.0, False, True, "max_steps")
    env.close()


def test_the_episode_settings_are_one_configuration_whose_mode_the_mode_argument_replaces() -> None:
    def tools(env: Tau2SeatEnv) -> set[str]:
        env.reset(seed=0)
        names = {schema["function"]["name"] for schema in env.tool_schemas}
        env.close()
        return names

    solo = EpisodeConfig(mode="solo")  # type: ignore[arg-type]
    made = gymnasium.make("tau2/mock-agent-v0", task_id="unplugged", config=solo)
    assert made.unwrapped.mode.value == "solo" and "done" in tools(made.unwrapped)  # type: ignore[attr-defined]
    replaced = Tau2SeatEnv("mock", "agent", task_id="unplugged", mode="interactive", config=solo)
    assert replaced.mode.value == "interactive" and "done" not in tools(replaced)


def test_user_seat_has_no_solo_mode() -> None:
    from tau2.errors import UserInputError

    with pytest.raises(UserInputError, match="solo mode has no user seat"):
        Tau2SeatEnv("mock", "user", mode="solo")


def test_an_llm_other_seat_works_from_synchronous_code() -> None:
    """The other seat is an asynchronous LLM actor (served by the scripted OpenAI-compatible server); the
    training loop below stays plain synchronous code."""
    from tau2.episode import ActorSpec
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
    from tau2.episode import ActorTurn, Entry, SeatContext

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
    from tau2.rl._actions import entry_view

    env = Tau2SeatEnv(
        "mock", seat, task_id=task_id, config=EpisodeConfig(max_steps=12)
    )  # every learner action is a step
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


def test_an_action_longer_than_the_action_space_is_refused_and_changes_nothing() -> None:
    """Refused before it reaches the episode: the next action gets exactly what it would have got."""
    from tau2.rl._actions import MAX_ACTION_CHARS

    env, twin = Tau2SeatEnv("mock", "agent", task_id="both"), Tau2SeatEnv("mock", "agent", task_id="both")
    env.reset(seed=2)
    twin.reset(seed=2)
    too_long = "x" * (MAX_ACTION_CHARS + 1)
    assert not env.action_space.contains(too_long)
    with pytest.raises(ValueError, match=f"{MAX_ACTION_CHARS + 1} characters exceeds the limit"):
        env.step(too_long)
    action = tool_call_action("enable_power", {"customer": "Ada"})
    assert env.step(action)[:4] == twin.step(action)[:4]
    assert env.step("x" * MAX_ACTION_CHARS)[:4] == twin.step("x" * MAX_ACTION_CHARS)[:4]
    env.close()
    twin.close()


@pytest.mark.parametrize("action", [None, 7, b"hello", ["hello"], {"message": "hi"}])
def test_an_action_that_is_not_text_is_refused(action: object) -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="an action is text"):
        env.step(action)  # type: ignore[arg-type]
    _, _, terminated, _, _ = env.step("Please plug the lamp in.")
    assert not terminated and env.result is None
    env.close()


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ('{"message": ' + "[" * 1500 + "]" * 1500 + "}", "nests arrays and objects more than 32 deep"),
        (tool_call_action("plug_in", {"x": json.loads("[" * 40 + "]" * 40)}), "more than 32 deep"),
        ('{"message": "\\ud800"}', "lone UTF-16 surrogate"),
    ],
)
def test_deep_or_undecodable_json_is_an_actor_error_turn(action: str, error: str) -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    env.reset(seed=0)
    observation, reward, terminated, *_ = env.step(action)
    [entry] = json.loads(observation)
    assert (entry["kind"], reward, terminated) == ("actor_error", 0.0, False)
    assert error in entry["text"]
    env.close()


def test_a_message_with_lone_surrogates_is_kept_as_text_the_record_can_encode() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged", config=EpisodeConfig(max_steps=4))
    env.reset(seed=0)
    observation, *_ = env.step("dark \ud800 lamp")
    assert json.loads(observation)[0]["text"] == "dark \ufffd lamp"
    env.step("Hello?")
    assert env.result is not None
    assert "dark \ufffd lamp" in json.loads(env.result.model_dump_json())["trajectory"]["entries"][2]["text"]
    env.close()


@pytest.mark.parametrize(
    "options",
    [
        {"task_id": "no_such_task"},
        {"suite": "no_such_suite"},
        {"persona": "no_such_persona"},
        {"mode": "sideways"},
        {"task_id": 7},
        {"mode": "solo", "task_id": "no_such_task"},
    ],
    ids=str,
)
def test_a_refused_reset_option_does_not_stay_in_force(options: dict[str, object]) -> None:
    from tau2.errors import UserInputError

    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    with pytest.raises(UserInputError):
        env.reset(seed=0, options=options)
    with pytest.raises(RuntimeError, match="reset"):
        env.step("Hello")  # a refused reset leaves no episode running
    observation, info = env.reset(seed=0)
    assert (info["task_id"], info["mode"], env.task.persona) == ("unplugged", "interactive", None)
    assert "My lamp is dark." in observation
    env.close()


def test_an_accepted_reset_option_stays_in_force() -> None:
    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    env.reset(seed=0, options={"task_id": "both", "mode": "solo"})
    _, info = env.reset(seed=1)
    assert (info["task_id"], info["mode"]) == ("both", "solo")
    env.close()


def test_episodes_run_in_the_callers_thread() -> None:
    """No thread is started: the other seat's actor takes its turns within `reset` and `step`."""
    import threading

    before = threading.enumerate()
    env = Tau2SeatEnv("mock", "agent", task_id="both")
    env.reset(seed=0)
    env.step(tool_call_action("enable_power", {"customer": "Ada"}))
    env.step(message_action(format_request("plug_in", {})))
    assert threading.enumerate() == before
    _, reward, terminated, *_ = env.step(message_action(RESOLVED_PHRASE))
    env.close()
    assert (reward, terminated) == (1.0, True)


async def test_the_environment_works_inside_a_running_event_loop() -> None:
    """As in a notebook cell, where an event loop already runs in the thread: offline and LLM other
    seats still take their turns (on a helper thread for the length of each call)."""
    from tau2.episode import ActorSpec
    from tau2.testing import Reply, ScriptedOpenAIServer

    env = Tau2SeatEnv("mock", "agent", task_id="unplugged")
    env.reset(seed=0)
    env.step(message_action(format_request("plug_in", {})))
    _, reward, *_ = env.step(message_action(RESOLVED_PHRASE))
    env.close()
    assert reward == 1.0
    script = [Reply.text("My lamp is dark."), Reply.tool_call("end_call", {}, content="Bye!")]
    with ScriptedOpenAIServer(script) as server:
        model = ModelSpec(name="openai/test-user", api_base=server.base_url, args={"api_key": "k"})
        env = Tau2SeatEnv("mock", "agent", task_id="unplugged", other=ActorSpec(kind="llm", model=model))
        observation, _ = env.reset(seed=0)
        _, _, terminated, _, info = env.step("Hello")
        env.close()
    assert "My lamp is dark." in observation
    assert (terminated, info["termination"]) == (True, "user_stop")
