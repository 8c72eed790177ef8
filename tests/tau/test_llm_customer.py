"""The LLM customer on a single-control domain: a talking-only guide with its scenario, no tools but
`end_call`, and an episode the oracle agent finishes (tested at the HTTP boundary)."""

from __future__ import annotations

from pathlib import Path

from tau2 import ActorSpec, EpisodeConfig, get_domain, load_task_file, make_actor, run_episode
from tau2.actors._prompts import END_CALL
from tau2.episode import Mode, TerminationReason
from tau2.llm import ModelSpec
from tau2.testing import Reply, ScriptedOpenAIServer
from tau2.world import Side


async def test_llm_customer_only_talks_and_follows_its_scenario() -> None:
    task = next(t for t in load_task_file(Path(get_domain("airline").default_suite)) if t.id == "add_bag")
    replies = [Reply.text("Hi, I'd like to add a bag to reservation T9GF3E."), Reply.tool_call(END_CALL, {})]
    async with ScriptedOpenAIServer(replies) as server:
        model = ModelSpec(name="openai/tau2-test", api_base=server.base_url, args={"api_key": "sk-test"})
        spec = ActorSpec(kind="llm", model=model)
        result = await run_episode(
            task,
            make_actor(ActorSpec(kind="oracle"), Side.AGENT, Mode.INTERACTIVE),
            make_actor(spec, Side.USER, Mode.INTERACTIVE),
            EpisodeConfig(seed=3),
        )
        first = server.requests[0]
    system = first.messages[0]["content"]
    assert "You only talk" in system and "your own device" not in system
    assert "one more checked bag" in system and "lukas_berg_1006" in system
    assert [tool["function"]["name"] for tool in first.tools or []] == [END_CALL]
    assert result.termination is TerminationReason.USER_STOP
    assert result.reward == 1.0
