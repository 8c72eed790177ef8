"""The customer's brief rewritten by a named variant (`vary_brief`, the `instruction_variant`
perturbation): every variant keeps every fact of the brief (`fact_late` keeps the one it holds back for
later), the same (variant, seed) gives the same brief, the scripted and LLM users honour the late
information, the oracle still passes with the scripted user under every variant, and the model-based
paraphrase is asked through the scripted OpenAI-compatible server, cached and checked."""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from identifier_format_support import shipped_tasks

from tau2.actors import LATE_INFO_LEAD, make_actor
from tau2.actors._prompts import user_system_prompt
from tau2.episode import ActorSpec, ActorTurn, Entry, EntryKind, EpisodeConfig, Mode, SeatContext, run_episode
from tau2.errors import UserInputError
from tau2.llm import InfrastructureError, ModelCache, ModelSpec
from tau2.perturbations import paraphrase_brief
from tau2.rebrand import rename_identifiers
from tau2.runs import task_hash
from tau2.tasks import (
    TERSE_STYLE,
    VERBOSE_STYLE,
    BriefVariant,
    UserInstructions,
    UserScenario,
    brief_facts,
    sentences,
    vary_brief,
)
from tau2.testing import Reply, ScriptedOpenAIServer
from tau2.world import Side

WORDS = st.sampled_from(["card", "line", "bill", "router", "Paris", "refund", "data", "order", "C1001", "42"])


@st.composite
def fact(draw: st.DrawFn) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=5))
    return f"{words[0].capitalize()} {' '.join(words[1:])}".strip() + draw(st.sampled_from([".", "!", "?"]))


def part(min_size: int = 0) -> st.SearchStrategy[str]:
    return st.lists(fact(), min_size=min_size, max_size=4).map(" ".join)


briefs = st.builds(
    UserInstructions,
    reason_for_call=part(1),
    known_info=part().map(lambda text: text or None),
    unknown_info=part().map(lambda text: text or None),
    task_instructions=part(1),
)
variants = st.sampled_from(list(BriefVariant))
seeds = st.integers(min_value=0, max_value=2**32)


def told(instructions: UserInstructions | str) -> str:
    """Everything the varied brief tells the customer."""
    return UserScenario(instructions=instructions).instruction_text()


@settings(max_examples=200, deadline=None)
@given(briefs, variants, seeds)
def test_every_variant_keeps_every_fact(brief: UserInstructions, variant: BriefVariant, seed: int) -> None:
    varied = vary_brief(brief, variant, seed)
    assert isinstance(varied.instructions, UserInstructions)
    text = told(varied.instructions)
    assert all(fact in text for fact in brief_facts(brief))
    assert varied == vary_brief(brief, variant.value, seed)
    if variant is BriefVariant.FACT_LATE:
        held = varied.held_back
        candidates = sentences(brief.known_info) or sentences(brief.reason_for_call)[1:]
        assert (held is None) == (not candidates) and varied.instructions.late_info == held
        rest = Counter(brief_facts(varied.instructions.model_copy(update={"late_info": None})))
        assert held is None or (held in candidates and rest == Counter(brief_facts(brief)) - Counter([held]))
    else:
        assert varied.held_back is None and varied.instructions.late_info is None


@settings(max_examples=100, deadline=None)
@given(briefs, seeds)
def test_facts_out_of_order_moves_the_facts_of_a_part_that_has_several(
    brief: UserInstructions, seed: int
) -> None:
    varied = vary_brief(brief, "facts_out_of_order", seed).instructions
    assert isinstance(varied, UserInstructions)
    for field in ("reason_for_call", "known_info", "task_instructions"):
        facts = sentences(getattr(brief, field))
        moved = sentences(getattr(varied, field))
        assert sorted(moved) == sorted(facts)
        if len(set(facts)) > 1:
            assert moved != facts


BRIEF = UserInstructions(
    reason_for_call="Your mobile data stopped working this morning. You need it for work.",
    known_info="Your phone number is 555-123-2002. Your name is Dr. Ada Lee.",
    unknown_info="You do not know your account number.",
    task_instructions="Do what the agent asks.",
)


def test_terse_opens_with_one_sentence_and_verbose_with_everything_known() -> None:
    terse = vary_brief(BRIEF, "terse", 0).instructions
    verbose = vary_brief(BRIEF, "verbose", 0).instructions
    assert isinstance(terse, UserInstructions) and isinstance(verbose, UserInstructions)
    assert terse.reason_for_call == "Your mobile data stopped working this morning."
    assert (
        terse.known_info
        == "You need it for work. Your phone number is 555-123-2002. Your name is Dr. Ada Lee."
    )
    assert terse.task_instructions.endswith(TERSE_STYLE)
    assert verbose.reason_for_call.endswith("Your name is Dr. Ada Lee.") and verbose.known_info is None
    assert verbose.task_instructions.endswith(VERBOSE_STYLE)
    assert vary_brief(BRIEF, "terse", 0) == vary_brief(BRIEF, "terse", 99).model_copy(update={"seed": 0})


def test_the_seed_chooses_the_fact_held_back() -> None:
    held = {vary_brief(BRIEF, "fact_late", seed).held_back for seed in range(20)}
    assert held == {"Your phone number is 555-123-2002.", "Your name is Dr. Ada Lee."}


def test_a_free_text_brief_is_varied_as_its_sentences() -> None:
    text = "You want a refund for order #W100. It arrived broken. You paid by card."
    assert vary_brief(text, "terse", 1).instructions == f"{text} {TERSE_STYLE}"
    shuffled = vary_brief(text, "facts_out_of_order", 1).instructions
    assert isinstance(shuffled, str) and sorted(sentences(shuffled)) == sorted(sentences(text))
    late = vary_brief(text, "fact_late", 1)
    assert isinstance(late.instructions, UserInstructions)
    assert late.instructions.reason_for_call.startswith("You want a refund for order #W100.")
    assert (
        late.held_back in {"It arrived broken.", "You paid by card."}
        and late.instructions.late_info == late.held_back
    )
    assert "How to act" not in user_system_prompt(late.instructions, None)


def test_an_unknown_variant_is_refused_in_one_line() -> None:
    with pytest.raises(UserInputError, match=r"unknown instruction variant 'shouty' \(known: terse, verbose"):
        vary_brief(BRIEF, "shouty", 0)


def test_late_information_is_no_part_of_a_tasks_content_until_it_is_set() -> None:
    task = shipped_tasks("telecom")[0]
    assert "late_info" not in json.dumps(task.model_dump(mode="json"))
    late = vary_brief(task.user_scenario.instructions, "fact_late", 0).apply(task)
    assert task_hash(late) != task_hash(task)
    assert task_hash(vary_brief(task.user_scenario.instructions, "terse", 0).apply(task)) != task_hash(task)


def test_the_llm_user_is_told_late_information_apart() -> None:
    varied = vary_brief(BRIEF, "fact_late", 3).instructions
    assert isinstance(varied, UserInstructions) and varied.late_info is not None
    prompt = user_system_prompt(varied, None)
    assert f"{LATE_INFO_LEAD} {varied.late_info}" in prompt
    assert varied.known_info is not None and f"What you know: {varied.known_info}" in prompt
    assert LATE_INFO_LEAD not in user_system_prompt(BRIEF, None)


def test_renaming_identifiers_renames_late_information_too() -> None:
    task = shipped_tasks("telecom")[0]
    known = task.user_scenario.instructions
    assert isinstance(known, UserInstructions)
    start = rename_identifiers(task, 1)
    old, new = next(iter(start.renaming.identifiers.items()))
    late = known.model_copy(update={"late_info": f"Your record is {old}."})
    renamed = rename_identifiers(
        task.model_copy(update={"user_scenario": UserScenario(instructions=late)}), 1
    )
    instructions = renamed.task.user_scenario.instructions
    assert isinstance(instructions, UserInstructions) and instructions.late_info == f"Your record is {new}."


class Asker:
    """An agent that asks the customer twice for more without naming an action, then ends."""

    def __init__(self) -> None:
        self.turns = 0

    async def start(self, context: SeatContext) -> None:
        self.turns = 0

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.turns += 1
        return ActorTurn(text="Could you tell me more?")


async def test_the_scripted_user_gives_late_information_once_after_its_opening() -> None:
    task = shipped_tasks("telecom")[0]
    varied = vary_brief(task.user_scenario.instructions, "fact_late", 2)
    assert varied.held_back is not None
    user = make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE)
    result = await run_episode(varied.apply(task), Asker(), user, EpisodeConfig())
    said = [e.text for e in result.trajectory.entries if e.kind is EntryKind.MESSAGE and e.seat is Side.USER]
    assert said[1] == varied.held_back and said.count(varied.held_back) == 1
    assert varied.held_back not in (said[0] or "")


@pytest.mark.parametrize("domain", ["telecom", "airline", "retail", "banking_knowledge"])
async def test_the_oracle_passes_with_the_scripted_user_under_every_variant(domain: str) -> None:
    for task in shipped_tasks(domain)[:3]:
        for variant in BriefVariant:
            varied = vary_brief(task.user_scenario.instructions, variant, 5).apply(task)
            agent = make_actor(ActorSpec(kind="oracle"), Side.AGENT, Mode.INTERACTIVE)
            user = make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE)
            result = await run_episode(varied, agent, user, EpisodeConfig())
            assert result.reward == 1.0, (domain, task.id, variant)


def model(server: ScriptedOpenAIServer) -> ModelSpec:
    return ModelSpec(name="openai/paraphraser", api_base=server.base_url, transport="native", max_retries=0)


def paraphrased(parts: dict[str, str]) -> Reply:
    return Reply.text(json.dumps(parts))


GOOD = {
    "reason_for_call": "Since this morning your mobile data has not worked. Work depends on it.",
    "known_info": "Your number: 555-123-2002. You are Dr. Ada Lee.",
    "unknown_info": "Your account number is unknown to you.",
    "task_instructions": "Follow the agent's requests.",
}


def test_the_paraphrase_is_asked_once_then_answered_from_the_cache(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    with ScriptedOpenAIServer([paraphrased(GOOD)]) as server:
        varied, usage = asyncio.run(paraphrase_brief(BRIEF, model(server), 4, cache=cache))
        again, cached = asyncio.run(paraphrase_brief(BRIEF, model(server), 4, cache=cache))
        assert server.request_count == 1
        request = json.loads(server.requests[0].messages[-1]["content"])
    assert request == BRIEF.model_dump(exclude_none=True)
    assert varied == again and varied.model == "openai/paraphraser" and varied.variant == "paraphrase"
    assert varied.instructions == UserInstructions(**GOOD)
    assert usage.calls == 1 and cached.cached_calls == 1


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("Sure! Here it is.", "is not JSON"),
        (json.dumps({**GOOD, "known_info": "You are Dr. Ada Lee."}), "drops '555-123-2002'"),
        (
            json.dumps({key: value for key, value in GOOD.items() if key != "unknown_info"}),
            "exactly its parts",
        ),
        (json.dumps({**GOOD, "task_instructions": " "}), "leaves task_instructions empty"),
    ],
)
def test_a_paraphrase_that_loses_something_is_refused(answer: str, message: str) -> None:
    with (
        ScriptedOpenAIServer([Reply.text(answer)]) as server,
        pytest.raises(InfrastructureError, match=message),
    ):
        asyncio.run(paraphrase_brief(BRIEF, model(server), 4))
