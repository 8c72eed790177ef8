"""Tests of the LLM seats driven turn by turn against the scripted server through real litellm."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import json
from typing import Any

import pytest

from tau2.actors import Actor, ActorSpec, SeatContext, make_actor, render_plan
from tau2.actors._llm import LLMActor, LLMAgent, LLMUser, SoloAgent
from tau2.domains.mock import DOMAIN
from tau2.episode import GREETING, Entry, EntryKind, EpisodeConfig, Mode, ToolCall, seat_contexts
from tau2.errors import UserInputError
from tau2.llm import ContextOverflowError, ModelSpec, RetryPolicy
from tau2.tasks import AssertionCall, EnvCall, Evaluation, SolutionStep, Task, UserInstructions, UserScenario
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedToolCall
from tau2.world import Side, ToolResult

SOLUTION = [
    SolutionStep(side=Side.AGENT, name="enable_power", arguments={"customer": "Ada"}, action_id="a0"),
    SolutionStep(side=Side.USER, name="plug_in", action_id="u1"),
]
TASK = Task(
    id="lamp",
    domain="mock",
    user_scenario=UserScenario(
        instructions=UserInstructions(
            reason_for_call="SECRET-REASON: the lamp stays dark.",
            known_info="SECRET-KNOWN: your name is Ada.",
            unknown_info="SECRET-UNKNOWN: why the power was cut.",
            task_instructions="SECRET-HOW: the issue is resolved once the lamp is lit.",
        ),
        persona_text="SECRET-PERSONA: you are calm.",
    ),
    ticket="TICKET: Ada's lamp is dark; she allows any fix.",
    initialization=[EnvCall(side=Side.USER, name="unplug"), EnvCall(side=Side.AGENT, name="cut_power")],
    evaluation=Evaluation(
        assertions=[
            AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True})
        ],
        solution=SOLUTION,
    ),
)
POLICY_MARK = "Check the account first."
UNPRICED = "openai/tau2-test-model"


def spec(server: ScriptedOpenAIServer, model: str = UNPRICED) -> ModelSpec:
    return ModelSpec(name=model, api_base=server.base_url, args={"api_key": "k"}, max_retries=1)


def context(seat: Side, config: EpisodeConfig | None = None, task: Task = TASK) -> SeatContext:
    return seat_contexts(task, DOMAIN, config or EpisodeConfig(seed=11))[seat]


async def started(actor: LLMActor, seat: Side, config: EpisodeConfig | None = None) -> LLMActor:
    await actor.start(context(seat, config))
    return actor


class Log:
    """Builds trajectory entries the way the orchestrator numbers them."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, seat: Side, kind: EntryKind, **fields: Any) -> Entry:
        entry = Entry(index=len(self.entries), seat=seat, kind=kind, **fields)
        self.entries.append(entry)
        return entry

    def message(self, seat: Side, text: str) -> Entry:
        return self.add(seat, EntryKind.MESSAGE, text=text)

    def call_and_result(self, seat: Side, call: ToolCall, result: ToolResult) -> list[Entry]:
        return [
            self.add(seat, EntryKind.TOOL_CALL, tool_call=call),
            self.add(seat, EntryKind.TOOL_RESULT, tool_call=call, result=result),
        ]


def dump(request: ChatRequest) -> str:
    return json.dumps(request.messages)


async def test_llm_actors_satisfy_the_actor_protocol() -> None:
    async with ScriptedOpenAIServer([]) as server:
        for cls in (LLMAgent, SoloAgent, LLMUser):
            assert isinstance(cls(spec(server)), Actor)


async def test_agent_tool_call_and_its_result_round_trip() -> None:
    log = Log()
    replies = [
        Reply.tool_call("get_account", {"customer": "Ada"}, call_id="call-A"),
        Reply.text("Your account is fine. Is the lamp plugged in?"),
    ]
    async with ScriptedOpenAIServer(replies) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        first = [log.message(Side.AGENT, GREETING), log.message(Side.USER, "My lamp is dark.")]
        turn = await agent.act(first)
        assert turn.tool_calls == [
            ToolCall(call_id="call-A", name="get_account", arguments={"customer": "Ada"})
        ]
        assert turn.text is None and not turn.stop and turn.error is None
        assert turn.usage is not None and turn.usage.calls == 1
        result = ToolResult.success({"customer": "Ada", "power_enabled": False})
        turn = await agent.act(log.call_and_result(Side.AGENT, turn.tool_calls[0], result))
        assert turn.text == "Your account is fine. Is the lamp plugged in?"
    first_request, second_request = server.requests
    assert first_request.seed == 11
    assert first_request.tool_names == ["get_account", "enable_power", "transfer_to_human_agents"]
    assert [message["role"] for message in first_request.messages] == ["system", "assistant", "user"]
    assert first_request.messages[1]["content"] == GREETING
    assert second_request.messages[3]["tool_calls"][0]["id"] == "call-A"
    assert second_request.messages[4] == {
        "role": "tool",
        "tool_call_id": "call-A",
        "content": result.render(),
    }
    assert agent.total_usage.calls == 2
    assert agent.total_usage.cost is None


async def test_parallel_tool_calls_become_one_turn() -> None:
    calls = (
        ScriptedToolCall(name="get_account", arguments={"customer": "Ada"}),
        ScriptedToolCall(name="enable_power", arguments={"customer": "Ada"}),
    )
    async with ScriptedOpenAIServer([Reply.parallel_tool_calls(calls)]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        turn = await agent.act([])
    assert [call.name for call in turn.tool_calls] == ["get_account", "enable_power"]
    assert len({call.call_id for call in turn.tool_calls}) == 2


async def test_malformed_json_is_an_error_turn_and_the_corrected_call_succeeds() -> None:
    log = Log()
    replies = [
        Reply.tool_call("get_account", '{"customer": "Ada"'),
        Reply.tool_call("get_account", {"customer": "Ada"}),
    ]
    async with ScriptedOpenAIServer(replies) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        bad = await agent.act([log.message(Side.USER, "Hello")])
        assert bad.error is not None and "not valid JSON" in bad.error
        assert not bad.tool_calls and bad.usage is not None
        good = await agent.act([log.add(Side.AGENT, EntryKind.ACTOR_ERROR, text=bad.error)])
    assert good.error is None
    assert good.tool_calls[0].arguments == {"customer": "Ada"}
    retry_messages = server.requests[1].messages
    assert retry_messages[-1]["role"] == "user"
    assert bad.error in retry_messages[-1]["content"]
    assert retry_messages[-1]["content"].startswith("[Simulation notice")
    assert not any("tool_calls" in message for message in retry_messages)
    assert agent.total_usage.calls == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply.tool_call("get_account", "[1, 2]"), "must be a JSON object"),
        (Reply.tool_call("launch_rocket", {}), "`launch_rocket` is not one of your tools"),
        (Reply.tool_call("plug_in", {}), "asked of the customer in a message"),
        (Reply.tool_call("get_account", {"customer": "Ada"}, content="Let me check."), "mixed a message"),
        (Reply.empty(), "was empty"),
        (Reply.text("   \n"), "was empty"),
    ],
    ids=["not-an-object", "unknown-tool", "other-seat-tool", "text-and-tools", "empty", "blank"],
)
async def test_malformed_agent_output_becomes_an_error_turn(reply: Reply, expected: str) -> None:
    async with ScriptedOpenAIServer([reply]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        turn = await agent.act([])
    assert turn.error is not None and expected in turn.error
    assert (turn.text, turn.tool_calls, turn.stop) == (None, [], False)


async def test_user_cannot_call_agent_tools() -> None:
    async with ScriptedOpenAIServer([Reply.tool_call("enable_power", {"customer": "Ada"})]) as server:
        user = await started(LLMUser(spec(server)), Side.USER)
        turn = await user.act([])
    assert turn.error is not None and "`enable_power` is not one of your tools" in turn.error


async def test_user_end_call_is_a_stop_with_an_optional_goodbye() -> None:
    replies = [
        Reply.tool_call("end_call"),
        Reply.tool_call("end_call", content="Thanks, bye!"),
        Reply.parallel_tool_calls([ScriptedToolCall(name="plug_in"), ScriptedToolCall(name="end_call")]),
    ]
    async with ScriptedOpenAIServer(replies) as server:
        user = await started(LLMUser(spec(server)), Side.USER)
        hang_up = await user.act([])
        goodbye = await user.act([])
        mixed = await user.act([])
    assert (hang_up.stop, hang_up.text, hang_up.tool_calls) == (True, None, [])
    assert (goodbye.stop, goodbye.text) == (True, "Thanks, bye!")
    assert mixed.error is not None and "only call of its turn" in mixed.error and not mixed.stop
    assert server.requests[0].tool_names == ["look_at_lamp", "plug_in", "flip_switch", "end_call"]


async def test_user_tool_calls_and_messages() -> None:
    log = Log()
    replies = [Reply.tool_call("look_at_lamp", ""), Reply.text("It is not plugged in.")]
    async with ScriptedOpenAIServer(replies) as server:
        user = await started(LLMUser(spec(server)), Side.USER)
        turn = await user.act([log.message(Side.AGENT, GREETING), log.message(Side.AGENT, "Look at it?")])
        assert turn.tool_calls[0].name == "look_at_lamp" and turn.tool_calls[0].arguments == {}
        lamp = ToolResult.success("lit: no; plugged in: no; switch: on")
        turn = await user.act(log.call_and_result(Side.USER, turn.tool_calls[0], lamp))
    assert turn.text == "It is not plugged in."
    roles = [message["role"] for message in server.requests[1].messages]
    assert roles == ["system", "user", "user", "assistant", "tool"]


async def test_solo_agent_works_alone_with_both_toolsets_and_done() -> None:
    config = EpisodeConfig(mode=Mode.SOLO)
    replies = [Reply.text("Hello, how can I help?"), Reply.tool_call("done")]
    async with ScriptedOpenAIServer(replies) as server:
        solo = await started(SoloAgent(spec(server)), Side.AGENT, config)
        talking = await solo.act([])
        assert talking.error is not None and "working alone" in talking.error
        finished = await solo.act([])
    assert [call.name for call in finished.tool_calls] == ["done"]
    request = server.requests[0]
    assert request.tool_names == [
        "get_account",
        "enable_power",
        "transfer_to_human_agents",
        "look_at_lamp",
        "plug_in",
        "flip_switch",
        "done",
    ]
    system = request.messages[0]["content"]
    assert "TICKET: Ada's lamp is dark" in system
    assert "You perform lamp actions yourself." in system
    assert request.messages[1]["role"] == "user"
    assert "SECRET" not in dump(request)


async def test_solo_mode_needs_a_ticket() -> None:
    async with ScriptedOpenAIServer([]) as server:
        solo = SoloAgent(spec(server))
        no_ticket = TASK.model_copy(update={"ticket": None})
        with pytest.raises(UserInputError, match="no ticket"):
            await solo.start(context(Side.AGENT, EpisodeConfig(mode=Mode.SOLO), no_ticket))


async def test_context_overflow_propagates_from_act() -> None:
    async with ScriptedOpenAIServer([Reply.context_overflow()]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        with pytest.raises(ContextOverflowError):
            await agent.act([])
    assert server.request_count == 1


async def test_rate_limited_turn_is_retried_inside_act() -> None:
    async with ScriptedOpenAIServer([Reply.error(429), Reply.text("Hello!")]) as server:
        agent = LLMAgent(spec(server), retry=RetryPolicy(base_delay_s=0.001, max_delay_s=0.001))
        await agent.start(context(Side.AGENT))
        turn = await agent.act([])
    assert turn.text == "Hello!"
    assert server.request_count == 2
    assert turn.usage is not None and turn.usage.calls == 1


async def test_priced_model_reports_cost_per_turn_and_in_total() -> None:
    async with ScriptedOpenAIServer([Reply.text("One"), Reply.text("Two")]) as server:
        agent = await started(LLMAgent(spec(server, "openai/gpt-4o-mini")), Side.AGENT)
        turns = [await agent.act([]), await agent.act([])]
    costs = [turn.usage.cost for turn in turns if turn.usage is not None]
    assert len(costs) == 2 and all(isinstance(cost, float) and cost > 0 for cost in costs)
    assert agent.total_usage.calls == 2
    assert agent.total_usage.cost == pytest.approx(sum(cost for cost in costs if cost is not None))


async def test_agent_prompt_holds_policy_but_no_hidden_user_facts_or_plan() -> None:
    log = Log()
    hidden = ToolResult.success("lit: no; plugged in: no; switch: on")
    user_only = log.call_and_result(Side.USER, ToolCall(call_id="u-1", name="look_at_lamp"), hidden)
    async with ScriptedOpenAIServer([Reply.text("How can I help?")]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        await agent.act([*user_only, log.message(Side.USER, "It is dark.")])
    sent = dump(server.requests[0])
    assert POLICY_MARK in sent
    assert "SECRET" not in sent and "TICKET" not in sent
    assert "lit: no" not in sent and "u-1" not in sent
    assert "Reference plan" not in sent and "plug_in" not in sent


async def test_oracle_plan_adds_the_numbered_steps_with_their_seats() -> None:
    async with ScriptedOpenAIServer([Reply.text("Hi")]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT, EpisodeConfig(oracle_plan=True))
        await agent.act([])
    system = server.requests[0].messages[0]["content"]
    assert (
        "1. You call `enable_power` with customer=Ada.\n2. The customer runs `plug_in` on their device."
        in system
    )
    assert "SECRET" not in system


async def test_user_prompt_holds_scenario_and_persona_but_no_policy_or_agent_results() -> None:
    log = Log()
    account = ToolResult.success({"customer": "Ada", "power_enabled": False})
    agent_only = log.call_and_result(
        Side.AGENT, ToolCall(call_id="a-1", name="get_account", arguments={"customer": "Ada"}), account
    )
    config = EpisodeConfig(oracle_plan=True)
    async with ScriptedOpenAIServer([Reply.text("My lamp is dark.")]) as server:
        user = await started(LLMUser(spec(server)), Side.USER, config)
        await user.act([log.message(Side.AGENT, GREETING), *agent_only])
    sent = dump(server.requests[0])
    for mark in ("SECRET-REASON", "SECRET-KNOWN", "SECRET-UNKNOWN", "SECRET-HOW", "SECRET-PERSONA"):
        assert mark in sent
    assert POLICY_MARK not in sent and "TICKET" not in sent
    assert "power_enabled" not in sent and "a-1" not in sent
    assert "enable_power" not in sent and "Reference plan" not in sent


async def test_plain_string_scenario_and_no_persona() -> None:
    task = TASK.model_copy(
        update={"user_scenario": UserScenario(instructions="PLAIN: call about the lamp.", persona_text=None)}
    )
    async with ScriptedOpenAIServer([Reply.text("Hi")]) as server:
        user = LLMUser(spec(server))
        await user.start(seat_contexts(task, DOMAIN, EpisodeConfig())[Side.USER])
        await user.act([])
    system = server.requests[0].messages[0]["content"]
    assert "PLAIN: call about the lamp." in system
    assert "Who you are" not in system


async def test_start_resets_the_transcript_and_totals() -> None:
    async with ScriptedOpenAIServer([Reply.text("One"), Reply.text("Two")]) as server:
        agent = await started(LLMAgent(spec(server)), Side.AGENT)
        await agent.act([])
        await agent.start(context(Side.AGENT))
        await agent.act([])
    assert agent.total_usage.calls == 1
    assert len(server.requests[1].messages) == 1


def test_actor_needs_a_model() -> None:
    with pytest.raises(UserInputError, match="--agent llm needs --agent-model"):
        make_actor(ActorSpec(kind="llm"), Side.AGENT)


def test_render_plan_names_the_performing_seat() -> None:
    steps = [
        SolutionStep(
            side=Side.AGENT, name="refuel_data", arguments={"customer_id": "C1001", "gb": 2.0}, action_id="a"
        ),
        SolutionStep(side=Side.USER, name="toggle_roaming", action_id="b"),
        SolutionStep(side=Side.USER, name="set_mode", arguments={"mode": "4g", "force": True}, action_id="c"),
    ]
    assert render_plan(steps, solo=False) == (
        "1. You call `refuel_data` with customer_id=C1001, gb=2.0.\n"
        "2. The customer runs `toggle_roaming` on their device.\n"
        "3. The customer runs `set_mode` on their device with mode=4g, force=true."
    )
    assert render_plan(steps, solo=True).splitlines()[1:] == [
        "2. You run `toggle_roaming` on the customer's device.",
        "3. You run `set_mode` on the customer's device with mode=4g, force=true.",
    ]
    assert render_plan([], solo=False) == ""
