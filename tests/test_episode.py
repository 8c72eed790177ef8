"""The orchestrator on the mock domain: turn protocol, observability, tool resolution, terminations."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

import pytest
from pydantic import JsonValue

from tau2.actors._null import NullAgent
from tau2.actors._oracle import OracleAgent
from tau2.actors._scripted import ScriptedUser
from tau2.actors._transfer import TransferAgent
from tau2.domains.mock.tasks import BOTH, MOCK_TASKS, NEEDS_HUMAN, UNPLUGGED, WHITELISTED
from tau2.episode import (
    DONE_TOOL,
    GREETING,
    Actor,
    ActorTurn,
    Entry,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    Mode,
    SeatContext,
    TerminationReason,
    ToolCall,
    run_episode,
)
from tau2.errors import ErrorCode
from tau2.llm import ContextOverflowError, InfrastructureError, Usage
from tau2.tasks import EnvCall, Task, TaskSetupError
from tau2.world import Side

INTERACTIVE = EpisodeConfig(mode=Mode.INTERACTIVE)
SOLO = EpisodeConfig(mode=Mode.SOLO)

Step = ActorTurn | BaseException


class Stub:
    """Plays a fixed list of turns (or raises the exceptions in it), repeating the last one forever."""

    def __init__(self, steps: Sequence[Step], *, fail_start: BaseException | None = None) -> None:
        self.steps = list(steps)
        self.fail_start = fail_start
        self.context: SeatContext | None = None
        self.observations: list[list[Entry]] = []

    async def start(self, context: SeatContext) -> None:
        self.context = context
        if self.fail_start is not None:
            raise self.fail_start

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.observations.append(observation)
        step = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
        if isinstance(step, BaseException):
            raise step
        return step


class Recording:
    """Wraps an actor and keeps every observation it received."""

    def __init__(self, inner: Actor) -> None:
        self.inner = inner
        self.observations: list[list[Entry]] = []

    async def start(self, context: SeatContext) -> None:
        await self.inner.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.observations.append(observation)
        return await self.inner.act(observation)


def call(name: str, call_id: str = "c1", **arguments: JsonValue) -> ToolCall:
    return ToolCall(call_id=call_id, name=name, arguments=arguments)


def say(text: str) -> ActorTurn:
    return ActorTurn(text=text)


def tools(*calls: ToolCall) -> ActorTurn:
    return ActorTurn(tool_calls=list(calls))


async def play(
    agent: Actor, user: Actor | None = None, *, task: Task = UNPLUGGED, **config: object
) -> EpisodeResult:
    settings = EpisodeConfig.model_validate({"mode": Mode.INTERACTIVE, **config})
    if user is None and settings.mode is Mode.INTERACTIVE:
        user = ScriptedUser()
    return await run_episode(task, agent, user, settings)


@pytest.mark.parametrize("config", [INTERACTIVE, SOLO], ids=["interactive", "solo"])
@pytest.mark.parametrize("task", MOCK_TASKS, ids=lambda task: task.id)
async def test_oracle_solves_every_mock_task(task: Task, config: EpisodeConfig) -> None:
    result = await run_episode(task, OracleAgent(), ScriptedUser(), config)
    assert result.reward == 1.0, result.trajectory.termination_detail
    expected = TerminationReason.TRANSFER if task.evaluation.expects_transfer else None
    if expected is None:
        expected = TerminationReason.AGENT_STOP if config.mode is Mode.SOLO else TerminationReason.USER_STOP
    assert result.termination is expected
    assert all(action.performed and action.by_right_seat for action in result.evaluation.actions)


@pytest.mark.parametrize("config", [INTERACTIVE, SOLO], ids=["interactive", "solo"])
@pytest.mark.parametrize("task", MOCK_TASKS, ids=lambda task: task.id)
async def test_null_and_transfer_agents_bound_the_mock_tasks(task: Task, config: EpisodeConfig) -> None:
    null = await run_episode(task, NullAgent(), ScriptedUser(), config)
    transfer = await run_episode(task, TransferAgent(), ScriptedUser(), config)
    assert null.reward == 0.0
    assert null.trajectory.steps <= 8
    assert transfer.reward == (1.0 if task.evaluation.expects_transfer else 0.0)
    assert transfer.termination is TerminationReason.TRANSFER


async def test_interactive_opens_with_the_greeting_and_the_user_speaks_first() -> None:
    user = Recording(ScriptedUser())
    result = await play(OracleAgent(), user)
    first = result.trajectory.entries[0]
    assert (first.seat, first.kind, first.text) == (Side.AGENT, EntryKind.MESSAGE, GREETING)
    assert first.usage is None
    assert [entry.text for entry in user.observations[0]] == [GREETING]
    assert result.trajectory.entries[1].seat is Side.USER
    assert result.trajectory.steps == 6  # the greeting is not a turn


@pytest.mark.parametrize("task", MOCK_TASKS, ids=lambda task: task.id)
async def test_each_seat_observes_only_messages_and_its_own_tool_traffic(task: Task) -> None:
    agent, user = Recording(OracleAgent()), Recording(ScriptedUser())
    result = await run_episode(task, agent, user, INTERACTIVE)
    for seat, recorder in ((Side.AGENT, agent), (Side.USER, user)):
        seen = [entry for observation in recorder.observations for entry in observation]
        assert seen
        assert all(entry.kind is EntryKind.MESSAGE or entry.seat is seat for entry in seen)
        seen_indices = [entry.index for entry in seen]
        assert seen_indices == sorted(set(seen_indices))  # nothing is delivered twice
    user_traffic = [entry for entry in result.trajectory.entries if entry.seat is Side.USER]
    if any(entry.kind is EntryKind.TOOL_CALL for entry in user_traffic):
        agent_seen = {entry.index for observation in agent.observations for entry in observation}
        assert all(entry.kind is EntryKind.MESSAGE for entry in user_traffic if entry.index in agent_seen)


async def test_tool_results_go_back_to_the_caller_which_acts_again() -> None:
    agent = Stub([tools(call("get_account", customer="Ada")), say("Done checking.")])
    user = Stub([say("My lamp is dark."), ActorTurn(stop=True)])
    result = await play(agent, user)
    kinds = [(entry.seat, entry.kind) for entry in result.trajectory.entries]
    assert kinds == [
        (Side.AGENT, EntryKind.MESSAGE),
        (Side.USER, EntryKind.MESSAGE),
        (Side.AGENT, EntryKind.TOOL_CALL),
        (Side.AGENT, EntryKind.TOOL_RESULT),
        (Side.AGENT, EntryKind.MESSAGE),
    ]
    second = agent.observations[1]
    assert [entry.kind for entry in second] == [EntryKind.TOOL_CALL, EntryKind.TOOL_RESULT]
    result_entry = second[1]
    assert result_entry.tool_call is not None and result_entry.tool_call.call_id == "c1"
    assert result_entry.result is not None and result_entry.result.ok
    assert result.termination is TerminationReason.USER_STOP
    assert [c.side for c in result.trajectory.tool_calls()] == [Side.AGENT]


async def test_a_stop_may_carry_a_farewell_message() -> None:
    user = Stub([ActorTurn(text="Bye.", stop=True)])
    result = await play(NullAgent(), user)
    assert result.trajectory.entries[-1].text == "Bye."
    assert result.termination is TerminationReason.USER_STOP


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("plug_in", ErrorCode.WRONG_SEAT),
        ("teleport", ErrorCode.UNKNOWN_TOOL),
        (DONE_TOOL, ErrorCode.UNKNOWN_TOOL),
    ],
)
async def test_interactive_seat_calling_a_tool_it_does_not_hold_gets_an_error(
    name: str, code: ErrorCode
) -> None:
    agent = Stub([tools(call(name)), say("Sorry.")])
    result = await play(agent, Stub([say("Hello"), ActorTurn(stop=True)]))
    entry = next(entry for entry in result.trajectory.entries if entry.kind is EntryKind.TOOL_RESULT)
    assert entry.seat is Side.AGENT
    assert entry.result is not None and entry.result.error is not None
    assert entry.result.error.code is code
    assert entry.tool_call is not None and entry.tool_call.side is None
    assert result.evaluation.tool_errors == 1
    assert agent.observations[1][-1] == entry  # the caller sees its error


async def test_the_user_whitelist_filters_schemas_and_calls() -> None:
    user = Stub([say("Dark lamp."), tools(call("look_at_lamp")), ActorTurn(stop=True)])
    result = await play(NullAgent(), user, task=WHITELISTED)
    assert user.context is not None
    assert [schema["function"]["name"] for schema in user.context.tool_schemas] == ["plug_in"]
    error = next(entry.result for entry in result.trajectory.entries if entry.kind is EntryKind.TOOL_RESULT)
    assert error is not None and error.error is not None and error.error.code is ErrorCode.UNKNOWN_TOOL


async def test_solo_agent_holds_both_toolsets_and_done() -> None:
    agent = Stub(
        [tools(call("enable_power", "c1", customer="Ada"), call("plug_in", "c2")), tools(call(DONE_TOOL))]
    )
    result = await play(agent, task=BOTH, mode=Mode.SOLO)
    assert agent.context is not None
    assert agent.context.sides == (Side.AGENT, Side.USER)
    names = [schema["function"]["name"] for schema in agent.context.tool_schemas]
    assert {"enable_power", "plug_in", DONE_TOOL} <= set(names)
    assert agent.context.persona_text is None
    assert agent.observations[0] == []  # solo: no greeting, the agent starts
    assert [c.side for c in result.trajectory.tool_calls()] == [Side.AGENT, Side.USER, Side.AGENT]
    assert result.termination is TerminationReason.AGENT_STOP
    assert result.reward == 1.0
    assert result.user is None


async def test_calls_after_done_in_the_same_turn_are_not_run() -> None:
    agent = Stub([tools(call(DONE_TOOL, "c1"), call("plug_in", "c2"))])
    result = await play(agent, mode=Mode.SOLO)
    assert [c.name for c in result.trajectory.tool_calls()] == [DONE_TOOL]
    assert result.reward == 0.0


async def test_contexts_carry_policy_persona_and_seed() -> None:
    agent, user = Stub([say("Hi")]), Stub([ActorTurn(stop=True)])
    config = EpisodeConfig(seed=7, oracle_plan=True)
    await run_episode(UNPLUGGED, agent, user, config, persona_text="You are in a hurry.")
    assert agent.context is not None and user.context is not None
    assert agent.context.policy is not None and "Ask the customer" in agent.context.policy
    assert agent.context.persona_text is None
    assert user.context.persona_text == "You are in a hurry."
    assert user.context.policy is None
    assert (agent.context.seed, user.context.seed) == (7, 7)
    assert agent.context.config.oracle_plan
    user_names = {schema["function"]["name"] for schema in user.context.tool_schemas}
    assert user_names == {"look_at_lamp", "plug_in", "flip_switch"}


async def test_the_task_persona_is_used_without_an_override() -> None:
    user = Stub([ActorTurn(stop=True)])
    await run_episode(UNPLUGGED, NullAgent(), user, INTERACTIVE)
    assert user.context is not None and user.context.persona_text == "You are calm."


async def test_usage_is_recorded_per_turn_and_per_seat() -> None:
    cost = Usage(calls=1, prompt_tokens=10, completion_tokens=2, cost=0.5)
    agent = Stub([ActorTurn(tool_calls=[call("get_account", customer="Ada")], usage=cost), say("ok")])
    user = Stub([ActorTurn(text="hi", usage=cost), ActorTurn(stop=True, usage=Usage(calls=1, cost=None))])
    result = await play(agent, user)
    entries = result.trajectory.entries
    assert entries[1].usage == cost  # the user's message
    assert entries[2].usage == cost and entries[3].usage is None  # first entry of the agent's turn only
    assert result.trajectory.usage[Side.AGENT] == cost
    assert result.trajectory.usage[Side.USER] == Usage(
        calls=2, prompt_tokens=10, completion_tokens=2, cost=None
    )
    assert result.trajectory.total_usage.cost is None
    assert result.trajectory.total_usage.calls == 3
    assert all(b.elapsed_s >= a.elapsed_s for a, b in itertools.pairwise(entries))


async def test_max_steps_counts_actor_turns() -> None:
    result = await play(Stub([say("hmm")]), Stub([say("what?")]), max_steps=5)
    assert result.termination is TerminationReason.MAX_STEPS
    assert result.trajectory.steps == 5
    assert result.reward == 0.0


async def test_too_many_failed_tool_calls_end_the_episode() -> None:
    agent = Stub([tools(call("get_account", customer="Bob"))])
    result = await play(agent, Stub([say("hi")]), max_errors=3)
    assert result.termination is TerminationReason.TOO_MANY_ERRORS
    assert result.evaluation.tool_errors == 3
    assert result.trajectory.steps == 4  # user + 3 failing agent turns


async def test_repeated_malformed_output_ends_with_actor_error_and_is_shown_to_the_actor() -> None:
    agent = Stub([ActorTurn(error="bad JSON in tool arguments")])
    user = Stub([say("hi")])
    result = await play(agent, user, max_actor_retries=3)
    assert result.termination is TerminationReason.ACTOR_ERROR
    errors = [entry for entry in result.trajectory.entries if entry.kind is EntryKind.ACTOR_ERROR]
    assert len(errors) == 3 and all(entry.seat is Side.AGENT for entry in errors)
    assert agent.observations[1] == [errors[0]]  # the actor sees its error and may correct itself
    assert all(error.index not in {e.index for obs in user.observations for e in obs} for error in errors)
    assert "bad JSON" in (result.trajectory.termination_detail or "")


async def test_a_good_turn_resets_the_malformed_output_count() -> None:
    bad = ActorTurn(error="oops")
    agent = Stub([bad, bad, say("fine"), bad, bad, say("fine again")])
    result = await play(agent, Stub([say("hi")]), max_actor_retries=3, max_steps=12)
    assert result.termination is TerminationReason.MAX_STEPS


@pytest.mark.parametrize(
    ("turn", "fragment"),
    [
        (ActorTurn(text="Let me check.", tool_calls=[call("get_account", customer="Ada")]), "not both"),
        (ActorTurn(), "empty"),
        (ActorTurn(text="   "), "empty"),
        (ActorTurn(stop=True), "Only the customer"),
    ],
    ids=["mixed", "empty", "blank", "agent-stop"],
)
async def test_malformed_agent_turns_are_actor_errors(turn: ActorTurn, fragment: str) -> None:
    result = await play(Stub([turn]), Stub([say("hi")]), max_actor_retries=2)
    assert result.termination is TerminationReason.ACTOR_ERROR
    assert fragment in (result.trajectory.termination_detail or "")
    assert not result.trajectory.tool_calls()  # a rejected turn runs nothing


@pytest.mark.parametrize(
    ("turn", "fragment"),
    [(say("I fixed it."), "no one to talk to"), (ActorTurn(stop=True), DONE_TOOL)],
    ids=["text", "stop"],
)
async def test_solo_agent_cannot_talk_or_stop(turn: ActorTurn, fragment: str) -> None:
    result = await play(Stub([turn]), mode=Mode.SOLO, max_actor_retries=1)
    assert result.termination is TerminationReason.ACTOR_ERROR
    assert fragment in (result.trajectory.termination_detail or "")


async def test_user_stop_with_tool_calls_is_malformed() -> None:
    user = Stub([ActorTurn(stop=True, tool_calls=[call("plug_in")])])
    result = await play(NullAgent(), user, max_actor_retries=1)
    assert result.termination is TerminationReason.ACTOR_ERROR


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ContextOverflowError("prompt too long"), TerminationReason.CONTEXT_OVERFLOW),
        (InfrastructureError("provider down after 4 retries"), TerminationReason.INFRASTRUCTURE_ERROR),
        (KeyError("surprise"), TerminationReason.INFRASTRUCTURE_ERROR),
    ],
)
async def test_actor_exceptions_end_with_a_typed_reason(error: Exception, reason: TerminationReason) -> None:
    result = await play(Stub([say("Hello"), error]), Stub([say("hi")]))
    assert result.termination is reason
    detail = result.trajectory.termination_detail or ""
    assert type(error).__name__ in detail
    assert ("test_episode.py:" in detail) is isinstance(error, KeyError)  # where an unexpected error arose
    assert result.trajectory.steps == 3  # user, agent, user; the raising turn is not counted


async def test_an_actor_failing_to_start_ends_the_episode() -> None:
    user = Stub([say("hi")], fail_start=InfrastructureError("no model"))
    result = await play(NullAgent(), user)
    assert result.termination is TerminationReason.INFRASTRUCTURE_ERROR
    assert result.trajectory.entries == []


async def test_a_successful_transfer_ends_the_episode_and_a_failed_one_does_not() -> None:
    failed = call("transfer_to_human_agents", "c1")  # missing summary: invalid arguments
    good = call("transfer_to_human_agents", "c2", summary="needs a human")
    agent = Stub([tools(failed), tools(good, call("enable_power", "c3", customer="Ada"))])
    result = await play(agent, Stub([say("hi")]), task=NEEDS_HUMAN)
    assert result.termination is TerminationReason.TRANSFER
    assert [c.call_id for c in result.trajectory.tool_calls()] == ["c1", "c2"]  # c3 never ran
    assert result.evaluation.transferred and result.reward == 1.0


async def test_failed_initialisation_is_an_error_not_a_zero() -> None:
    broken = UNPLUGGED.model_copy(
        update={"initialization": [EnvCall(side=Side.USER, name="no_such_function")]}
    )
    with pytest.raises(TaskSetupError, match="no_such_function"):
        await play(OracleAgent(), task=broken)


async def test_interactive_needs_a_user() -> None:
    with pytest.raises(ValueError, match="user actor"):
        await run_episode(UNPLUGGED, OracleAgent(), None, INTERACTIVE)


async def test_the_result_round_trips_through_json() -> None:
    result = await run_episode(
        BOTH, OracleAgent(), ScriptedUser(), INTERACTIVE, agent_label="oracle", user_label="scripted"
    )
    line = result.model_dump_json()
    assert "\n" not in line
    again = EpisodeResult.model_validate_json(line)
    assert again == result
    data = json.loads(line)
    assert data["termination"] == "user_stop" and data["reward"] == 1.0
    assert data["agent"] == "oracle" and data["user"] == "scripted"
    assert set(data["timing"]) == {"setup_s", "conversation_s", "evaluation_s"}
