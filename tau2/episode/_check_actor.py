"""A conformance checker for actors and the turn protocol, shipped so that authors of new actors can run
them against generated opponents: episodes of a task are driven with random turns (messages, tool calls
of either seat or of no seat, stops, empty and error turns) and the trajectory must keep the protocol."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from tau2.episode._actor import Actor, ActorTurn, SeatContext, hand_world_view
from tau2.episode._config import EpisodeConfig
from tau2.episode._episode import Episode
from tau2.episode._orchestrator import start_actors, take_turns
from tau2.episode._trajectory import Entry, EntryKind, RejectedReply, ToolCall, Trajectory
from tau2.tasks import Task, initialize_world
from tau2.world import Side, WorldView

if TYPE_CHECKING:
    from hypothesis import strategies as st

UNKNOWN_TOOL = "no_such_tool"
"""A tool name no seat holds, so that random turns also exercise unknown-tool handling."""
SHORT_EPISODES = EpisodeConfig(max_steps=12)
"""The episodes `check_actor` generates by default: a dozen turns find protocol breaks, and keep each
example fast."""


class _ProtocolBroken(Exception):
    """A protocol property violated by one generated episode."""


class RandomActor:
    """An actor that plays a fixed list of turns, then stops (or, as the agent, keeps talking)."""

    def __init__(self, turns: list[ActorTurn]) -> None:
        self._turns = list(turns)
        self._seat = Side.AGENT

    async def start(self, context: SeatContext) -> None:
        """Note the seat; the turns are already decided."""
        self._seat = context.seat

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The next planned turn; once they run out the user hangs up and the agent says goodbye."""
        if self._turns:
            return self._turns.pop(0)
        return ActorTurn(stop=True) if self._seat is Side.USER else ActorTurn(text="goodbye")


class _Recorder:
    """Passes an actor through unchanged while keeping every observation it was handed."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor
        self.observed: list[Entry] = []

    async def start(self, context: SeatContext) -> None:
        """Start the wrapped actor."""
        await self.actor.start(context)

    def observe_world(self, view: WorldView) -> None:
        """Hand the wrapped actor the world's view, if it judges the world itself."""
        hand_world_view(self.actor, view)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Record the observation, then let the wrapped actor decide."""
        self.observed.extend(observation)
        return await self.actor.act(observation)


def check_actor(
    actor: Actor | None,
    seat: Side,
    task: Task,
    *,
    data_dir: Path | None = None,
    config: EpisodeConfig = SHORT_EPISODES,
    max_examples: int = 30,
) -> list[str]:
    """Protocol problems found when `actor` (None: a random actor) holds `seat` of `task` against random
    opponents in episodes configured by `config`; one line each, empty when every generated episode keeps
    the protocol."""
    from hypothesis import HealthCheck, Verbosity, given, settings
    from hypothesis import strategies as st

    world = initialize_world(task, data_dir)
    names = [tool.name for tool in world.tools.tools()] + [UNKNOWN_TOOL]
    turns = st.lists(_turns(names), min_size=1, max_size=config.max_steps)
    profile = settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,  # the counterexample is returned as a problem line, not printed
    )

    @profile
    @given(own=turns, other=turns)
    def episode_keeps_protocol(own: list[ActorTurn], other: list[ActorTurn]) -> None:
        tested = actor if actor is not None else RandomActor(own)
        actors = {seat: _Recorder(tested), seat.other: _Recorder(RandomActor(other))}
        trajectory = asyncio.run(_converse(task, config, data_dir, actors))
        problems = protocol_problems(trajectory, config, {side: a.observed for side, a in actors.items()})
        if problems:
            raise _ProtocolBroken(problems[0])

    try:
        episode_keeps_protocol()
    except _ProtocolBroken as problem:
        return [str(problem)]
    except Exception as error:  # the actor or the orchestrator raised: that is the finding
        return [f"an episode raised {type(error).__name__}: {error}"]
    return []


async def _converse(
    task: Task, config: EpisodeConfig, data_dir: Path | None, actors: dict[Side, _Recorder]
) -> Trajectory:
    episode = await Episode.create(task, config, data_dir=data_dir)
    await take_turns(episode, actors, await start_actors(episode, actors))
    return episode.trajectory


def protocol_problems(
    trajectory: Trajectory, config: EpisodeConfig, observed: dict[Side, list[Entry]]
) -> list[str]:
    """What a trajectory (and what each seat was shown) breaks of the turn protocol."""
    problems = []
    if trajectory.termination is None:
        problems.append("the episode ended without a termination reason")
    if trajectory.steps > config.max_steps:
        problems.append(f"{trajectory.steps} actor turns exceed max_steps={config.max_steps}")
    indices = [entry.index for entry in trajectory.entries]
    if indices != list(range(len(indices))):
        problems.append(f"entry indices are not contiguous from 0: {indices}")
    problems.extend(_unanswered_calls(trajectory.entries))
    problems.extend(_uncorrected_rejections(trajectory.entries))
    for side, entries in observed.items():
        foreign = [entry.index for entry in entries if not entry.visible_to(side)]
        if foreign:
            problems.append(f"the {side.value} seat observed entries it may not see: {foreign}")
        elif entries != trajectory.view(side)[: len(entries)]:
            problems.append(f"the {side.value} seat's observations are not its view of the trajectory")
    return problems


def _unanswered_calls(entries: list[Entry]) -> list[str]:
    """Every tool call must be answered by a result for the same call, on the same seat, before the
    conversation moves on."""
    pending: list[tuple[Side, str]] = []
    for entry in entries:
        call = entry.tool_call
        if entry.kind is EntryKind.TOOL_CALL and call is not None:
            pending.append((entry.seat, call.call_id))
        elif entry.kind is EntryKind.TOOL_RESULT and call is not None:
            if (entry.seat, call.call_id) not in pending:
                return [f"entry {entry.index} answers a tool call that was not pending"]
            pending.remove((entry.seat, call.call_id))
        elif pending:
            return [f"entry {entry.index} comes before the result of tool call {pending[0][1]!r}"]
    return [f"tool call {pending[0][1]!r} was never answered"] if pending else []


def _uncorrected_rejections(entries: list[Entry]) -> list[str]:
    """A rejected reply is kept for its own seat only and is followed at once by that seat's correction."""
    for entry, following in zip(entries, [*entries[1:], None], strict=True):
        if entry.kind is not EntryKind.REJECTED_REPLY:
            continue
        if entry.rejected is None:
            return [f"rejected reply {entry.index} does not keep the reply"]
        if (
            following is None
            or following.kind is not EntryKind.ACTOR_ERROR
            or following.seat is not entry.seat
        ):
            return [f"rejected reply {entry.index} is not followed by its seat's correction"]
    return []


def _turns(names: list[str]) -> st.SearchStrategy[ActorTurn]:
    from hypothesis import strategies as st

    arguments = st.dictionaries(
        st.sampled_from(["customer", "id", "reason", "amount", "x"]),
        st.one_of(st.text(max_size=6), st.integers(-2, 9), st.booleans(), st.none()),
        max_size=2,
    )
    calls = st.lists(
        st.builds(
            ToolCall, call_id=st.text("abc123", min_size=1, max_size=4), name=st.sampled_from(names)
        ).flatmap(lambda call: arguments.map(lambda values: call.model_copy(update={"arguments": values}))),
        min_size=1,
        max_size=3,
    )
    return st.one_of(
        st.builds(ActorTurn, text=st.text(max_size=12)),
        st.builds(ActorTurn, tool_calls=calls),
        st.builds(ActorTurn, text=st.text(min_size=1, max_size=12), tool_calls=calls),
        st.just(ActorTurn(stop=True)),
        st.just(ActorTurn()),
        st.builds(ActorTurn, error=st.text(min_size=1, max_size=12)),
        st.builds(
            ActorTurn,
            error=st.text(min_size=1, max_size=12),
            rejected=st.builds(RejectedReply, text=st.text(max_size=12), stop=st.booleans()),
        ),
    )
