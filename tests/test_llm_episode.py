"""End-to-end episodes on the mock domain with LLM seats driven by scripted servers through real litellm."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import json

from tau2.actors import is_resolved
from tau2.actors._llm import LLMAgent, LLMUser, SoloAgent
from tau2.actors._oracle import TRANSFER_SUMMARY, OracleAgent
from tau2.episode import (
    GREETING,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    Mode,
    TerminationReason,
    run_episode,
)
from tau2.llm import ModelSpec
from tau2.tasks import AssertionCall, EnvCall, Evaluation, SolutionStep, Task, UserInstructions, UserScenario
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer
from tau2.world import Side

TASK = Task(
    id="dark_lamp",
    domain="mock",
    user_scenario=UserScenario(
        instructions=UserInstructions(
            reason_for_call="SECRET: your lamp is dark.",
            known_info="Your name is Ada.",
            task_instructions="The issue is resolved when the lamp is lit.",
        ),
        persona_text="SECRET persona: polite.",
    ),
    ticket="Ada's lamp is dark. She allows you to act on her lamp.",
    initialization=[EnvCall(side=Side.USER, name="unplug"), EnvCall(side=Side.AGENT, name="cut_power")],
    evaluation=Evaluation(
        assertions=[
            AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True})
        ],
        solution=[
            SolutionStep(side=Side.AGENT, name="enable_power", arguments={"customer": "Ada"}, action_id="a0"),
            SolutionStep(side=Side.USER, name="plug_in", action_id="u1"),
        ],
    ),
)


def spec(server: ScriptedOpenAIServer, model: str) -> ModelSpec:
    return ModelSpec(name=model, api_base=server.base_url, args={"api_key": "k"})


def roles(request: ChatRequest) -> list[str]:
    return [message["role"] for message in request.messages]


async def test_interactive_episode_with_llm_agent_and_llm_user() -> None:
    agent_script = [
        Reply.tool_call("get_account", {"customer": "Ada"}),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.tool_call("plug_in", {}),
        Reply.text("Power is back on. Please plug the lamp in and tell me what you see."),
        Reply.text("Glad it works!"),
    ]
    user_script = [
        Reply.text("Hi, my lamp is dark."),
        Reply.tool_call("plug_in", ""),
        Reply.text("It's lit now."),
        Reply.tool_call("end_call", content="Thanks, bye!"),
    ]
    async with (
        ScriptedOpenAIServer(agent_script) as agent_server,
        ScriptedOpenAIServer(user_script) as user_server,
    ):
        agent = LLMAgent(spec(agent_server, "openai/gpt-4o-mini"))
        user = LLMUser(spec(user_server, "openai/tau2-test-model"))
        result = await run_episode(TASK, agent, user, EpisodeConfig(seed=5))

    trajectory = result.trajectory
    assert result.termination is TerminationReason.USER_STOP
    assert result.reward == 1.0
    assert [(entry.seat.value, entry.kind.value) for entry in trajectory.entries] == [
        ("agent", "message"),
        ("user", "message"),
        ("agent", "tool_call"),
        ("agent", "tool_result"),
        ("agent", "tool_call"),
        ("agent", "tool_result"),
        ("agent", "rejected_reply"),
        ("agent", "actor_error"),
        ("agent", "message"),
        ("user", "tool_call"),
        ("user", "tool_result"),
        ("user", "message"),
        ("agent", "message"),
        ("user", "message"),
    ]
    assert trajectory.entries[0].text == GREETING
    assert trajectory.entries[13].text == "Thanks, bye!"
    rejected = trajectory.entries[6].rejected
    assert rejected is not None and [(c.name, c.arguments) for c in rejected.tool_calls] == [
        ("plug_in", "{}")
    ]
    assert "`plug_in` is not one of your tools" in (trajectory.entries[7].text or "")
    assert trajectory.steps == 9 and all(
        entry.kind.value != "rejected_reply" for entry in trajectory.view(Side.USER)
    )
    assert all(entry.result is not None and entry.result.ok for entry in trajectory.entries if entry.result)

    agent_usage, user_usage = trajectory.usage[Side.AGENT], trajectory.usage[Side.USER]
    assert (agent_usage.calls, user_usage.calls) == (5, 4)
    assert agent_usage.prompt_tokens > 0 and agent_usage.completion_tokens > 0
    assert isinstance(agent_usage.cost, float) and agent_usage.cost > 0
    assert agent_usage == agent.total_usage
    assert user_usage.cost is None and user_usage == user.total_usage
    assert result.trajectory.total_usage.cost is None
    assert {entry.usage.calls for entry in trajectory.entries if entry.usage} == {1}

    assert agent_server.request_count == 5 and user_server.request_count == 4
    assert all(request.seed == 5 for request in [*agent_server.requests, *user_server.requests])
    assert roles(agent_server.requests[-1]) == [
        "system",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
        "assistant",
        "user",
    ]
    assert roles(user_server.requests[-1]) == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    for request in agent_server.requests:
        sent = json.dumps(request.messages)
        assert "SECRET" not in sent and "lit: yes" not in sent and "Reference plan" not in sent
    for request in user_server.requests:
        sent = json.dumps(request.messages)
        assert "power_enabled" not in sent and "changed" not in sent
        assert "Check the account first" not in sent and "enable_power" not in sent


async def test_solo_episode_with_llm_solo_agent() -> None:
    script = [
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.tool_call("plug_in"),
        Reply.tool_call("look_at_lamp"),
        Reply.tool_call("done"),
    ]
    async with ScriptedOpenAIServer(script) as server:
        agent = SoloAgent(spec(server, "openai/gpt-4o-mini"))
        result = await run_episode(TASK, agent, None, EpisodeConfig(mode=Mode.SOLO, oracle_plan=True))
    assert result.termination is TerminationReason.AGENT_STOP
    assert result.reward == 1.0
    calls = [call.name for call in result.trajectory.tool_calls()]
    assert calls == ["enable_power", "plug_in", "look_at_lamp", "done"]
    system = server.requests[0].messages[0]["content"]
    assert "1. You call `enable_power` with customer=Ada." in system
    assert "2. You run `plug_in` on the customer's device." in system
    assert "SECRET" not in json.dumps([request.messages for request in server.requests])
    assert result.trajectory.usage[Side.AGENT].calls == 4


def agent_lines(result: EpisodeResult) -> list[str]:
    return [
        entry.text or ""
        for entry in result.trajectory.entries
        if entry.seat is Side.AGENT and entry.kind is EntryKind.MESSAGE
    ]


async def test_the_oracle_never_says_resolved_to_an_llm_customer_that_only_claims_the_step() -> None:
    claims = [Reply.text("Done, I plugged it in."), Reply.text("Yes, it is done."), Reply.text("Done!")]
    async with ScriptedOpenAIServer([Reply.text("My lamp is dark."), *claims]) as user_server:
        user = LLMUser(spec(user_server, "openai/tau2-test-model"))
        result = await run_episode(TASK, OracleAgent(), user, EpisodeConfig(seed=1))
        assert user_server.pending_replies == 0, "the customer was asked for the step three times"
    assert not any(is_resolved(line) for line in agent_lines(result))
    *_, transfer = result.trajectory.tool_calls()
    assert (transfer.name, transfer.arguments) == ("transfer_to_human_agents", {"summary": TRANSFER_SUMMARY})
    assert result.termination is TerminationReason.TRANSFER and result.reward == 0.0


async def test_the_oracle_closes_for_an_llm_customer_that_does_the_step_whatever_it_says() -> None:
    user_script = [
        Reply.text("My lamp is dark."),
        Reply.tool_call("plug_in", {}),
        Reply.text("ok"),
        Reply.tool_call("end_call", content="Thanks, bye!"),
    ]
    async with ScriptedOpenAIServer(user_script) as user_server:
        user = LLMUser(spec(user_server, "openai/tau2-test-model"))
        result = await run_episode(TASK, OracleAgent(), user, EpisodeConfig(seed=1))
    assert sum(is_resolved(line) for line in agent_lines(result)) == 1
    assert result.termination is TerminationReason.USER_STOP and result.reward == 1.0
