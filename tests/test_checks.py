"""The domain conformance checker passes the shipped packs and catches planted defects."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import BaseModel

from tau2.domains.mock import DOMAIN as MOCK
from tau2.domains.mock.domain import MockState
from tau2.domains.mock.domain import agent as mock_agent
from tau2.domains.mock.domain import user as mock_user
from tau2.world._checks import check_domain
from tau2.world._domain import get_domain
from tau2.world._tools import Side, ToolKind, ToolSet, ToolTable


@pytest.mark.parametrize("name", ["mock", "telecom"])
def test_shipped_domains_are_sound(name: str) -> None:
    assert check_domain(get_domain(name)) == []


def _with_extra_user_tools(extra: ToolSet) -> ToolTable:
    return ToolTable(mock_agent, mock_user, extra)


def test_undocumented_tools_and_arguments_are_reported() -> None:
    extra = ToolSet(Side.USER)

    @extra.tool(ToolKind.WRITE)
    def shake_lamp(state: MockState, times: int) -> None:
        state.lamp.switched_on = times % 2 == 0

    problems = check_domain(replace(MOCK, tools=_with_extra_user_tools(extra)))
    assert "tool 'shake_lamp' has no description (its docstring is what actors read)" in problems
    assert "tool 'shake_lamp': argument 'times' is not documented under Args:" in problems


def test_a_read_tool_that_writes_is_reported() -> None:
    extra = ToolSet(Side.USER)

    @extra.tool(ToolKind.READ)
    def peek_at_lamp(state: MockState) -> bool:
        """Look at the lamp (but, wrongly, unplug it)."""
        state.lamp.plugged_in = False
        return state.lit

    problems = check_domain(replace(MOCK, tools=_with_extra_user_tools(extra)))
    assert problems == ["read tool 'peek_at_lamp' changed the state"]


def test_misplaced_transfer_tool_missing_policy_and_broken_loader_are_reported() -> None:
    def broken_loader(data_dir: object) -> BaseModel:
        raise OSError("disk on fire")

    problems = check_domain(replace(MOCK, transfer_tool="plug_in", policy=None, load_state=broken_loader))
    assert problems == [
        "transfer tool 'plug_in' is not an agent tool",
        "the domain has no agent policy",
        "loading the state failed: OSError: disk on fire",
    ]


def test_a_fresh_state_breaking_an_invariant_is_reported() -> None:
    domain = replace(MOCK, invariants=lambda state: ["the lamp must be dark"])
    assert check_domain(domain) == ["a fresh state breaks an invariant: the lamp must be dark"]
