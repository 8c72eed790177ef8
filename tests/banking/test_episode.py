"""Banking episodes and worlds: a refused transfer does not end the conversation, and a task's data patch
never changes the shared base database while merging as τ²-bench merges (a property over patches)."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tau2 import ActorSpec, EpisodeConfig, Side, World, get_domain, load_task_file, make_actor, run_episode
from tau2.domains.banking_knowledge import DEFAULT_TASKS
from tau2.domains.banking_knowledge.state import TABLES, BankDB, merge_patch
from tau2.episode import ActorTurn, Entry, Mode, SeatContext, TerminationReason, ToolCall


class _TransferTwice:
    """Transfers with an unknown reason code, then with a valid one."""

    def __init__(self) -> None:
        self.turns = 0

    async def start(self, context: SeatContext) -> None:
        self.turns = 0

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.turns += 1
        reason = "boredom" if self.turns == 1 else "other"
        call = ToolCall(
            call_id=f"t{self.turns}",
            name="transfer_to_human_agents",
            arguments={"summary": "s", "reason": reason},
        )
        return ActorTurn(tool_calls=[call])


def test_a_refused_transfer_does_not_end_the_conversation() -> None:
    task = load_task_file(DEFAULT_TASKS)[4]  # task_005: the correct outcome is a transfer
    agent = _TransferTwice()
    user = make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE)
    result = asyncio.run(run_episode(task, agent, user, EpisodeConfig(seed=0)))
    assert result.termination is TerminationReason.TRANSFER
    assert agent.turns == 2
    assert result.evaluation.transferred


_text = st.text(alphabet="abcxyz_0123", min_size=1, max_size=6)
_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _text,
    lambda inner: st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_records = st.dictionaries(
    st.sampled_from(["chk_ada_blue", "u_bo_lindqvist", "new_1", "new_2"]),
    st.dictionaries(_text, _values, max_size=3),
    max_size=3,
)
_patches = st.dictionaries(
    st.sampled_from(["accounts", "users", "task_config"]),
    st.fixed_dictionaries({"data": _records}),
    max_size=2,
)


def _reference_merge(original: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """τ²-bench's merge, stated plainly: nested maps merge key by key, anything else replaces."""
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(original.get(key), dict):
            _reference_merge(original[key], value)
        else:
            original[key] = copy.deepcopy(value)
    return original


@given(_patches)
def test_a_patch_merges_as_the_reference_and_leaves_the_base_alone(patch: dict[str, Any]) -> None:
    base = World.create(get_domain("banking_knowledge")).state
    assert isinstance(base, BankDB)
    before = base.model_dump()
    patched = merge_patch(base, patch)
    assert base.model_dump() == before
    assert patched.model_dump() == _reference_merge(copy.deepcopy(before), patch)
    assert set(patched.model_dump()) == set(TABLES)
