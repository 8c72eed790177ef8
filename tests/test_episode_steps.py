"""The step-driven episode core (`Episode`) on the mock domain: driven by hand, one turn at a time, it
keeps the protocol and records exactly what the asynchronous orchestrator records for the same turns."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2.actors._oracle import OracleAgent
from tau2.actors._scripted import ScriptedUser
from tau2.domains.mock.tasks import BOTH, UNPLUGGED
from tau2.episode import (
    GREETING,
    ActorTurn,
    Entry,
    Episode,
    EpisodeConfig,
    Mode,
    RandomActor,
    TerminationReason,
    ToolCall,
    Trajectory,
    Turn,
    protocol_problems,
    run_episode,
)
from tau2.episode._check_actor import _turns
from tau2.llm import AuthenticationError
from tau2.world import Side

INTERACTIVE = EpisodeConfig(mode=Mode.INTERACTIVE, seed=1)
SOLO = EpisodeConfig(mode=Mode.SOLO, seed=1)


def untimed(trajectory: Trajectory) -> dict[str, object]:
    """The trajectory without its wall-clock fields."""
    data = trajectory.model_dump(mode="json", exclude={"duration_s"})
    for entry in data["entries"]:
        del entry["elapsed_s"]
    return data


def test_an_interactive_episode_opens_with_the_greeting_and_the_user_acts_first() -> None:
    episode = Episode(UNPLUGGED, INTERACTIVE)
    assert episode.seats == (Side.AGENT, Side.USER)
    turn = episode.start()
    assert turn is not None and turn.seat is Side.USER
    assert [entry.text for entry in turn.observation] == [GREETING]
    turn = episode.apply(ActorTurn(text="My lamp is dark."))
    assert turn is not None and turn.seat is Side.AGENT
    assert [entry.text for entry in turn.observation] == [GREETING, "My lamp is dark."]


def test_tool_calls_keep_the_turn_and_the_stop_ends_the_episode() -> None:
    episode = Episode(UNPLUGGED, INTERACTIVE)
    turn = episode.start()
    assert turn is not None
    turn = episode.apply(ActorTurn(tool_calls=[ToolCall(call_id="1", name="plug_in")]))
    assert turn is not None and turn.seat is Side.USER
    assert [entry.kind.value for entry in turn.observation] == ["tool_call", "tool_result"]
    assert episode.apply(ActorTurn(text="Fixed it, bye.", stop=True)) is None
    assert episode.over and episode.trajectory.termination is TerminationReason.USER_STOP
    result = episode.result(agent_label="a", user_label="u")
    assert (result.reward, result.agent, result.user, result.trajectory.steps) == (1.0, "a", "u", 2)
    assert [change.path for change in result.state_changes] == ["lamp.plugged_in"]


def test_a_solo_episode_starts_with_the_agent_and_has_no_user_label() -> None:
    episode = Episode(UNPLUGGED, SOLO)
    assert episode.seats == (Side.AGENT,)
    assert episode.start() == Turn(Side.AGENT, [])
    episode.apply(ActorTurn(tool_calls=[ToolCall(call_id="1", name="plug_in")]))
    assert episode.apply(ActorTurn(tool_calls=[ToolCall(call_id="2", name="done")])) is None
    result = episode.result(agent_label="a", user_label="u")
    assert (result.reward, result.termination, result.user) == (1.0, TerminationReason.AGENT_STOP, None)


def test_the_step_limit_ends_the_episode_after_the_last_allowed_turn() -> None:
    episode = Episode(UNPLUGGED, INTERACTIVE.model_copy(update={"max_steps": 2}))
    episode.start()
    assert episode.apply(ActorTurn(text="Hello")) is not None
    assert episode.apply(ActorTurn(text="Hello again")) is None
    assert episode.trajectory.termination is TerminationReason.MAX_STEPS
    assert episode.trajectory.termination_detail == "2 actor turns"


def test_calls_out_of_order_are_refused() -> None:
    episode = Episode(UNPLUGGED, INTERACTIVE)
    with pytest.raises(RuntimeError, match="has not started"):
        episode.apply(ActorTurn(text="too early"))
    with pytest.raises(RuntimeError, match="still running"):
        _ = episode.trajectory
    with pytest.raises(RuntimeError, match="still running"):
        episode.result()
    episode.start()
    with pytest.raises(RuntimeError, match="already started"):
        episode.start()
    episode.apply(ActorTurn(stop=True))
    with pytest.raises(RuntimeError, match="is over"):
        episode.apply(ActorTurn(text="too late"))


def test_a_failing_actor_ends_the_episode_and_refused_credentials_propagate() -> None:
    episode = Episode(UNPLUGGED, INTERACTIVE)
    episode.start()
    episode.fail(Side.USER, ValueError("boom"))
    assert episode.trajectory.termination is TerminationReason.INFRASTRUCTURE_ERROR
    assert "user actor: ValueError: boom" in (episode.trajectory.termination_detail or "")
    with pytest.raises(AuthenticationError, match="agent seat: no key"):
        Episode(UNPLUGGED, INTERACTIVE).fail(Side.AGENT, AuthenticationError("no key"))


@pytest.mark.parametrize("config", [INTERACTIVE, SOLO], ids=lambda config: config.label())
async def test_driven_by_hand_it_records_what_the_orchestrator_records(config: EpisodeConfig) -> None:
    agent, user = OracleAgent(), ScriptedUser()
    expected = await run_episode(BOTH, agent, user, config)
    episode = Episode(BOTH, config)
    actors = {Side.AGENT: agent, Side.USER: user}
    for seat in episode.seats:
        await actors[seat].start(episode.contexts[seat])
    turn = episode.start()
    while turn is not None:
        turn = episode.apply(await actors[turn.seat].act(turn.observation))
    assert untimed(episode.trajectory) == untimed(expected.trajectory)
    assert episode.result().evaluation == expected.evaluation


@settings(max_examples=40, deadline=None)
@given(
    agent_turns=st.lists(_turns(["plug_in", "enable_power", "get_account", "nope"]), max_size=10),
    user_turns=st.lists(_turns(["plug_in", "look_at_lamp", "enable_power"]), max_size=10),
)
async def test_random_turns_keep_the_protocol_and_match_the_orchestrator(
    agent_turns: list[ActorTurn], user_turns: list[ActorTurn]
) -> None:
    """Whatever the seats do, the core driven by hand shows each seat its own view in order, and records
    exactly what `run_episode` records when actors play the same turns."""
    config = INTERACTIVE.model_copy(update={"max_steps": 12})
    expected = await run_episode(BOTH, RandomActor(agent_turns), RandomActor(user_turns), config)
    planned = {Side.AGENT: list(agent_turns), Side.USER: list(user_turns)}
    observed: dict[Side, list[Entry]] = {Side.AGENT: [], Side.USER: []}
    episode = Episode(BOTH, config)
    turn = episode.start()
    while turn is not None:
        observed[turn.seat] += turn.observation
        if planned[turn.seat]:
            action = planned[turn.seat].pop(0)
        else:
            action = ActorTurn(stop=True) if turn.seat is Side.USER else ActorTurn(text="goodbye")
        turn = episode.apply(action)
    assert untimed(episode.trajectory) == untimed(expected.trajectory)
    assert protocol_problems(episode.trajectory, config, observed) == []
