"""The engine core on the mock domain: structured tool errors, derived schemas, snapshots, the registry."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from tau2.domains.mock import DOMAIN as MOCK
from tau2.domains.mock.tasks import BOTH
from tau2.errors import ErrorCode, ToolError, UnknownDomainError, UserInputError
from tau2.tasks import Domain, available_domains, domain_of, get_domain, initialize_world
from tau2.world import Observation, Side, ToolKind, ToolSet, ToolTable, World, WorldRules
from tau2.world._tools import parse_docstring


@pytest.fixture
def world() -> World:
    return World.create(MOCK)


def _code(result: object) -> ErrorCode | None:
    error = getattr(result, "error", None)
    return error.code if error is not None else None


def test_successful_call_returns_json_content(world: World) -> None:
    result = world.call(Side.AGENT, "get_account", {"customer": "Ada"})
    assert result.ok
    assert result.content == {"customer": "Ada", "power_enabled": True}


def test_unknown_tool_is_a_structured_error(world: World) -> None:
    result = world.call(Side.AGENT, "reboot_universe", {})
    assert not result.ok
    assert _code(result) is ErrorCode.UNKNOWN_TOOL
    assert "reboot_universe" in result.render()


def test_other_seats_tool_is_refused_without_running(world: World) -> None:
    result = world.call(Side.AGENT, "flip_switch", {})
    assert _code(result) is ErrorCode.WRONG_SEAT
    assert world.state.lamp.switched_on  # type: ignore[attr-defined]


def test_side_may_be_given_as_its_string_value(world: World) -> None:
    assert world.call("user", "look_at_lamp", {}).ok


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "customer: Field required"),
        ({"customer": "Ada", "extra": 1}, "extra: Extra inputs are not permitted"),
        ({"customer": 7}, "customer: Input should be a valid string"),
        (["customer"], "invalid arguments for get_account"),
    ],
    ids=["missing", "extra", "wrong-type", "not-an-object"],
)
def test_invalid_arguments_are_rejected_before_the_tool_runs(
    world: World, arguments: object, fragment: str
) -> None:
    result = world.call(Side.AGENT, "get_account", arguments)  # type: ignore[arg-type]
    assert _code(result) is ErrorCode.INVALID_ARGUMENT
    assert result.error is not None and fragment in result.error.message


def test_tool_errors_raised_by_the_domain_keep_their_code(world: World) -> None:
    result = world.call(Side.AGENT, "enable_power", {"customer": "Bob"})
    assert _code(result) is ErrorCode.NOT_FOUND
    assert result.render().startswith("Error (not_found):")


class _Counter(BaseModel):
    value: int = 0
    doubled: int = 0


def _crashing_domain() -> Domain:
    agent = ToolSet(Side.AGENT)

    @agent.tool(ToolKind.WRITE)
    def crash(state: _Counter) -> None:
        """Divide by zero."""
        state.value = 1 // 0

    @agent.tool(ToolKind.WRITE)
    def bump(state: _Counter, by: int) -> int:
        """Add to the counter.

        Args:
            by: How much to add.
        """
        if by < 0:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "by must not be negative")
        state.value += by
        return state.value

    def couple(state: _Counter) -> None:
        state.doubled = 2 * state.value

    return Domain(
        name="counter", description="", tools=ToolTable(agent), load_state=lambda _: _Counter(), couple=couple
    )


def test_exception_inside_a_tool_becomes_an_internal_error() -> None:
    world = World.create(_crashing_domain())
    result = world.call(Side.AGENT, "crash", {})
    assert _code(result) is ErrorCode.INTERNAL_ERROR
    assert result.error is not None and "ZeroDivisionError" in result.error.message


def test_coupling_runs_after_every_successful_write() -> None:
    world = World.create(_crashing_domain())
    assert world.call(Side.AGENT, "bump", {"by": 3}).content == 3
    assert world.state.doubled == 6  # type: ignore[attr-defined]
    assert _code(world.call(Side.AGENT, "bump", {"by": -1})) is ErrorCode.INVALID_ARGUMENT
    assert world.state.value == 3  # type: ignore[attr-defined]


def test_schema_comes_from_signature_and_docstring() -> None:
    tool = MOCK.tools.tool("get_account")
    assert tool is not None
    schema = tool.json_schema()
    assert schema["function"]["name"] == "get_account"
    assert schema["function"]["description"] == "Look up the customer's power account."
    parameters = schema["function"]["parameters"]
    assert parameters["required"] == ["customer"]
    assert parameters["properties"]["customer"] == {
        "description": "The customer's first name.",
        "type": "string",
    }
    assert parameters["additionalProperties"] is False


def test_tool_without_parameters_has_an_empty_object_schema() -> None:
    tool = MOCK.tools.tool("look_at_lamp")
    assert tool is not None
    parameters = tool.json_schema()["function"]["parameters"]
    assert parameters["properties"] == {}
    assert parameters["type"] == "object"


def test_parse_docstring_splits_description_and_arguments() -> None:
    description, arguments = parse_docstring(
        """Do a thing.

        Longer words.

        Args:
            first (int): The first
                one, continued.
            second: The second.
        """
    )
    assert description == "Do a thing. Longer words."
    assert arguments == {"first": "The first one, continued.", "second": "The second."}


def test_env_functions_are_not_exposed_as_tools(world: World) -> None:
    tool_names = {tool.name for tool in MOCK.tools.tools()}
    assert {"unplug", "cut_power", "assert_lamp_lit"}.isdisjoint(tool_names)
    schema_names = {schema["function"]["name"] for schema in MOCK.tools.schemas((Side.AGENT, Side.USER))}
    assert schema_names == tool_names
    assert _code(world.call(Side.USER, "unplug", {})) is ErrorCode.UNKNOWN_TOOL


def test_env_functions_and_tools_run_as_env_functions_of_their_side(world: World) -> None:
    assert world.run_env_function(Side.USER, "unplug").ok
    assert world.run_env_function(Side.USER, "assert_lamp_lit", {"expected_status": False}).content is True
    assert world.run_env_function(Side.USER, "plug_in").ok
    assert _code(world.run_env_function(Side.AGENT, "unplug")) is ErrorCode.UNKNOWN_TOOL


def test_snapshot_restore_and_fingerprint_round_trip(world: World) -> None:
    snapshot = world.snapshot()
    fingerprint = world.fingerprint()
    world.run_env_function(Side.AGENT, "cut_power")
    assert world.fingerprint() != fingerprint
    world.restore(snapshot)
    assert world.fingerprint() == fingerprint
    assert world.snapshot() == snapshot
    assert world.run_env_function(Side.USER, "assert_lamp_lit", {"expected_status": True}).content is True


def test_fresh_worlds_are_independent_and_equal() -> None:
    first, second = World.create(MOCK), World.create(MOCK)
    assert first.fingerprint() == second.fingerprint()
    first.run_env_function(Side.USER, "unplug")
    assert first.fingerprint() != second.fingerprint()
    assert World.create(MOCK).fingerprint() == second.fingerprint()


def test_registry_finds_installed_domains() -> None:
    assert "mock" in available_domains()
    assert get_domain("mock") is MOCK


def test_unknown_domain_lists_the_available_ones() -> None:
    with pytest.raises(UnknownDomainError, match=r"unknown domain 'nowhere' \(available: .*mock") as caught:
        get_domain("nowhere")
    assert isinstance(caught.value, UserInputError)


def test_a_world_needs_only_the_rules_of_its_domain() -> None:
    """The world-level half of a domain is enough for a world: its tools run and its coupling applies."""
    rules = WorldRules(
        name="rules", description="", tools=MOCK.tools, load_state=MOCK.load_state, couple=MOCK.couple
    )
    world = World.create(rules)
    assert world.call(Side.AGENT, "get_account", {"customer": "Ada"}).ok
    assert world.fingerprint() == World.create(MOCK).fingerprint()
    with pytest.raises(TypeError, match="built from world rules alone"):
        domain_of(world)


def test_a_tasks_world_gives_back_the_domain_it_was_built_from() -> None:
    assert domain_of(initialize_world(BOTH)) is MOCK


def _observing_domain() -> Domain:
    """A counter whose assertions report in each form evaluation accepts, and in one it refuses."""
    agent = ToolSet(Side.AGENT)

    @agent.assertion()
    def assert_value(state: _Counter, expected: int) -> Observation:
        """Whether the counter equals `expected`; observes the counter.

        Args:
            expected: The value.
        """
        return Observation(holds=state.value == expected, observed=state.value)

    @agent.assertion()
    def assert_zero(state: _Counter) -> bool:
        """Whether the counter is zero (a plain boolean, as third-party domains may return)."""
        return state.value == 0

    @agent.assertion()
    def assert_half(state: _Counter) -> dict[str, object]:
        """Not a verdict: an object that only looks like one."""
        return {"holds": True, "observed": 1, "extra": 2}

    return Domain(name="observing", description="", tools=ToolTable(agent), load_state=lambda _: _Counter())


def test_assertions_report_what_they_observed_and_a_plain_boolean_still_works() -> None:
    from tau2.tasks import AssertionCall, all_passed, run_assertions

    world = World.create(_observing_domain())
    calls = [
        AssertionCall(side=Side.AGENT, name="assert_value", arguments={"expected": 3}),
        AssertionCall(side=Side.AGENT, name="assert_value", arguments={"expected": 0}, expected=False),
        AssertionCall(side=Side.AGENT, name="assert_zero"),
        AssertionCall(side=Side.AGENT, name="assert_half"),
    ]
    outcomes = run_assertions(world, calls)
    assert [(o.actual, o.observed, o.passed) for o in outcomes] == [
        (False, 0, False),
        (True, 0, False),
        (True, None, True),
        (None, None, False),
    ]
    assert outcomes[0].describe() == "a.assert_value(expected=3) returned False (observed 0), expected True"
    assert outcomes[3].error is not None and "not a boolean" in outcomes[3].error
    assert (
        all_passed(world, calls[2:3])
        and not all_passed(world, calls[:1])
        and not all_passed(world, calls[3:])
    )
    assert Observation.of({"holds": 1, "observed": 0}) is None and Observation.of("yes") is None
