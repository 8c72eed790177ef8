"""The domain conformance checker passes the shipped packs and catches planted defects."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from pydantic import BaseModel
from shipped import SHIPPED_DOMAINS

from tau2.domains.mock import DOMAIN as MOCK
from tau2.domains.mock.domain import MockState
from tau2.domains.mock.domain import agent as mock_agent
from tau2.domains.mock.domain import user as mock_user
from tau2.errors import ErrorCode, ToolError
from tau2.tasks import get_domain
from tau2.world import Side, ToolKind, ToolSet, ToolTable, check_domain


@pytest.mark.parametrize("name", SHIPPED_DOMAINS)
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

    problems = check_domain(replace(MOCK, tools=_with_extra_user_tools(extra)), max_examples=0)
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
    assert check_domain(domain, max_examples=0) == [
        "a fresh state breaks an invariant: the lamp must be dark"
    ]


def _generated_problems(extra: ToolSet) -> list[str]:
    """What only the generated call sequences find (the static checks pass these tools)."""
    return [
        problem
        for problem in check_domain(replace(MOCK, tools=_with_extra_user_tools(extra)))
        if problem not in check_domain(replace(MOCK, tools=_with_extra_user_tools(extra)), max_examples=0)
    ]


def test_a_tool_that_raises_on_some_arguments_is_reported() -> None:
    extra = ToolSet(Side.USER)

    @extra.tool(ToolKind.WRITE)
    def dim_lamp(state: MockState, level: int) -> None:
        """Dim the lamp.

        Args:
            level: How far to dim it.
        """
        state.lamp.switched_on = 100 // level > 0

    problems = _generated_problems(extra)
    assert len(problems) == 1 and "dim_lamp" in problems[0] and "ZeroDivisionError" in problems[0]


def test_a_failing_call_that_leaves_a_trace_is_reported() -> None:
    extra = ToolSet(Side.USER)

    @extra.tool(ToolKind.WRITE)
    def unplug_lamp(state: MockState, confirm: bool) -> None:
        """Unplug the lamp.

        Args:
            confirm: Whether the customer agreed.
        """
        state.lamp.switched_on = not state.lamp.switched_on
        if not confirm:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "not confirmed")

    problems = _generated_problems(extra)
    assert len(problems) == 1 and problems[0].startswith("failing user unplug_lamp")


def test_a_call_breaking_an_invariant_is_reported() -> None:
    domain = replace(
        MOCK, invariants=lambda state: [] if state.lamp.switched_on else ["the lamp must stay switched on"]
    )
    problems = check_domain(domain)
    assert len(problems) == 1 and problems[0].endswith("broke an invariant: the lamp must stay switched on")


def test_a_nondeterministic_tool_is_reported() -> None:
    extra = ToolSet(Side.USER)
    draws = itertools.count()

    @extra.tool(ToolKind.READ)
    def count_flickers(state: MockState) -> int:
        """Count how often the lamp flickered."""
        return next(draws)

    problems = _generated_problems(extra)
    assert len(problems) == 1 and "on a fresh world gave different results" in problems[0]


def test_a_domain_loading_differently_twice_is_reported() -> None:
    loads = itertools.count()

    def drifting_loader(data_dir: object) -> MockState:
        state = MOCK.load_state(None)
        state.lamp.switched_on = next(loads) % 2 == 1
        return state

    problems = check_domain(replace(MOCK, load_state=drifting_loader))
    assert problems == ["loading the domain twice gives different states"]
