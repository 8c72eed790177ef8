"""The actor conformance checker passes the random actor on every shipped domain and catches actors
(and trajectories) that break the turn protocol."""

from __future__ import annotations

import pytest
from shipped import SHIPPED_DOMAINS

from tau2 import Side, Task, check_actor, get_domain, load_task_file
from tau2.episode import (
    ActorTurn,
    Entry,
    EntryKind,
    EpisodeConfig,
    RejectedReply,
    SeatContext,
    ToolCall,
    Trajectory,
    protocol_problems,
)
from tau2.world import ToolResult


def first_task(domain: str) -> Task:
    """The first task of a shipped domain's default suite."""
    suite = get_domain(domain).default_suite
    assert suite is not None, f"{domain} ships no suite"
    return load_task_file(suite, domain)[0]


@pytest.mark.parametrize("seat", list(Side))
@pytest.mark.parametrize("name", SHIPPED_DOMAINS)
def test_random_actors_keep_the_protocol_on_shipped_domains(name: str, seat: Side) -> None:
    assert check_actor(None, seat, first_task(name)) == []


class _Mute:
    """A well-behaved actor under test: it only ever says the same thing."""

    async def start(self, context: SeatContext) -> None:
        return None

    async def act(self, observation: list[Entry]) -> ActorTurn:
        return ActorTurn(text="hello")


def test_a_given_actor_is_checked_in_either_seat() -> None:
    task = first_task("mock")
    assert check_actor(_Mute(), Side.AGENT, task) == []
    assert check_actor(_Mute(), Side.USER, task) == []


class _Garbled(_Mute):
    """Returns something that is not a turn at all."""

    async def act(self, observation: list[Entry]) -> ActorTurn:
        return "hello"  # type: ignore[return-value]


def test_an_actor_returning_a_non_turn_is_reported() -> None:
    problems = check_actor(_Garbled(), Side.AGENT, first_task("mock"))
    assert problems == ["an episode raised AttributeError: 'str' object has no attribute 'usage'"]


def _entry(index: int, seat: Side, kind: EntryKind, call: ToolCall | None = None) -> Entry:
    result = ToolResult(ok=True, content=None) if kind is EntryKind.TOOL_RESULT else None
    return Entry(index=index, seat=seat, kind=kind, text="hi", tool_call=call, result=result)


def test_broken_trajectories_and_leaky_observations_are_reported() -> None:
    call = ToolCall(call_id="c1", name="get_account")
    entries = [
        _entry(0, Side.AGENT, EntryKind.MESSAGE),
        _entry(1, Side.AGENT, EntryKind.TOOL_CALL, call),
        _entry(3, Side.USER, EntryKind.MESSAGE),
    ]
    trajectory = Trajectory(entries=entries, steps=5)
    problems = protocol_problems(trajectory, EpisodeConfig(max_steps=4), {Side.USER: entries[:2]})
    assert problems == [
        "the episode ended without a termination reason",
        "5 actor turns exceed max_steps=4",
        "entry indices are not contiguous from 0: [0, 1, 3]",
        "entry 3 comes before the result of tool call 'c1'",
        "the user seat observed entries it may not see: [1]",
    ]


def test_a_sound_trajectory_has_no_problems() -> None:
    call = ToolCall(call_id="c1", name="get_account")
    entries = [
        _entry(0, Side.AGENT, EntryKind.TOOL_CALL, call),
        _entry(1, Side.AGENT, EntryKind.TOOL_RESULT, call),
        _entry(2, Side.AGENT, EntryKind.MESSAGE),
    ]
    trajectory = Trajectory(entries=entries, steps=2, termination="agent_stop")
    assert protocol_problems(trajectory, EpisodeConfig(), {Side.USER: entries[2:], Side.AGENT: entries}) == []


def test_rejected_replies_must_keep_the_reply_precede_their_correction_and_stay_private() -> None:
    kept = RejectedReply(text="not a turn")
    entries = [
        Entry(index=0, seat=Side.AGENT, kind=EntryKind.REJECTED_REPLY, rejected=kept),
        Entry(index=1, seat=Side.AGENT, kind=EntryKind.MESSAGE, text="hello"),
    ]
    trajectory = Trajectory(entries=entries, steps=2, termination="user_stop")
    assert protocol_problems(trajectory, EpisodeConfig(), {Side.USER: entries}) == [
        "rejected reply 0 is not followed by its seat's correction",
        "the user seat observed entries it may not see: [0]",
    ]
    empty = [Entry(index=0, seat=Side.USER, kind=EntryKind.REJECTED_REPLY)]
    assert protocol_problems(
        Trajectory(entries=empty, steps=1, termination="user_stop"), EpisodeConfig(), {}
    ) == ["rejected reply 0 does not keep the reply"]
    corrected = [
        Entry(index=0, seat=Side.USER, kind=EntryKind.REJECTED_REPLY, rejected=kept),
        Entry(index=1, seat=Side.USER, kind=EntryKind.ACTOR_ERROR, text="say something"),
    ]
    trajectory = Trajectory(entries=corrected, steps=1, termination="user_stop")
    assert protocol_problems(trajectory, EpisodeConfig(), {Side.USER: corrected, Side.AGENT: []}) == []


class _Stubborn:
    """An actor whose every turn is rejected, with what it said attached."""

    async def start(self, context: SeatContext) -> None:
        return None

    async def act(self, observation: list[Entry]) -> ActorTurn:
        return ActorTurn(error="unreadable", rejected=RejectedReply(text="{broken"))


def test_an_actor_whose_turns_are_all_rejected_keeps_the_protocol() -> None:
    assert check_actor(_Stubborn(), Side.USER, first_task("mock")) == []
    assert check_actor(_Stubborn(), Side.AGENT, first_task("mock")) == []
