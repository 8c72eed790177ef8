"""An LLM agent on the bank, tested at the HTTP boundary: it is offered its configuration's retrieval
tools before the bank's, reads the configuration's instructions, and its searches count toward recall."""

from __future__ import annotations

import asyncio

from tau2 import ActorSpec, EpisodeConfig, Side, load_task_file, make_actor, run_episode
from tau2.domains.banking_knowledge import DEFAULT_TASKS
from tau2.episode import Mode
from tau2.llm import ModelSpec
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer
from tau2.world import RetrievalConfig


def test_an_llm_agent_searches_with_its_configurations_tools() -> None:
    task = next(task for task in load_task_file(DEFAULT_TASKS) if task.id == "task_002")
    seen: list[ChatRequest] = []

    def agent(request: ChatRequest) -> Reply:
        seen.append(request)
        if len(seen) == 1:
            return Reply.tool_call("KB_search", {"query": "lost debit card replacement"})
        return Reply.text("I found the procedure. Your issue is resolved.")

    async def episode() -> float:
        with ScriptedOpenAIServer(agent) as server:
            spec = ActorSpec(kind="llm", model=ModelSpec(name="openai/agent", api_base=server.base_url))
            result = await run_episode(
                task,
                make_actor(spec, Side.AGENT, Mode.INTERACTIVE),
                make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE),
                EpisodeConfig(seed=0, max_steps=8, retrieval=RetrievalConfig(name="bm25_grep", top_k=3)),
            )
        assert result.evaluation.retrieval is not None
        recall = result.evaluation.retrieval.recall
        assert recall is not None
        return recall

    recall = asyncio.run(episode())
    first = seen[0]
    assert first.tool_names[:3] == ["KB_search", "grep", "transfer_to_human_agents"]
    system = str(first.messages[0]["content"])
    assert "`KB_search` (a keyword search ranked by BM25) and `grep`" in system
    assert recall == 1 / 3  # the search listed the lost-card procedure, not the other two documents
