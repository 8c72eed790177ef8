"""The telecom domain pack as the engine sees it: registration, tool table, schemas, policy variants."""

from __future__ import annotations

import pytest

from tau2.domains.telecom import DOMAIN
from tau2.errors import UserInputError
from tau2.tasks import get_domain
from tau2.world import Side, ToolKind

TAU2_INIT_FUNCTIONS = {
    Side.USER: [
        "set_user_info",
        "set_user_location",
        "turn_airplane_mode_on",
        "unseat_sim_card",
        "lock_sim_card",
        "break_apn_settings",
        "break_apn_mms_setting",
        "break_vpn",
        "remove_app_permission",
        "set_network_mode_preference",
        "set_wifi_calling",
        "simulate_network_search",
        "turn_data_off",
        "turn_data_saver_mode_on",
        "turn_roaming_on",
        "turn_roaming_off",
    ],
    Side.AGENT: [
        "enable_roaming",
        "disable_roaming",
        "set_data_usage",
        "suspend_line_for_overdue_bill",
        "refuel_data",
    ],
}
ASSERTIONS = {
    Side.USER: [
        "assert_airplane_mode_status",
        "assert_service_status",
        "assert_mobile_data_status",
        "assert_mobile_roaming_status",
        "assert_mobile_data_saver_mode_status",
        "assert_internet_speed",
        "assert_internet_not_excellent",
        "assert_can_send_mms",
        "assert_mobile_data_usage_exceeded",
    ],
    Side.AGENT: [
        "assert_data_refueling_amount",
        "assert_line_status",
        "assert_overdue_bill_exists",
        "assert_no_overdue_bill",
    ],
}


def test_registered_under_its_entry_point() -> None:
    assert get_domain("telecom") is DOMAIN
    assert DOMAIN.couple is None
    assert DOMAIN.transfer_tool == "transfer_to_human_agents"


@pytest.mark.parametrize(
    ("side", "counts"),
    [
        (Side.AGENT, {ToolKind.READ: 6, ToolKind.WRITE: 6, ToolKind.GENERIC: 1}),
        (Side.USER, {ToolKind.READ: 15, ToolKind.WRITE: 15}),
    ],
)
def test_tool_counts_by_kind(side: Side, counts: dict[ToolKind, int]) -> None:
    tools = DOMAIN.tools.tools(side)
    assert {kind: sum(tool.kind is kind for tool in tools) for kind in counts} == counts
    assert len(tools) == sum(counts.values())


def test_tool_names_of_the_two_sides_are_disjoint() -> None:
    agent = {tool.name for tool in DOMAIN.tools.tools(Side.AGENT)}
    user = {tool.name for tool in DOMAIN.tools.tools(Side.USER)}
    assert not agent & user


@pytest.mark.parametrize("side", [Side.AGENT, Side.USER])
def test_every_tau2_init_and_assertion_function_exists(side: Side) -> None:
    for name in TAU2_INIT_FUNCTIONS[side] + ASSERTIONS[side]:
        assert DOMAIN.tools.env_function(side, name) is not None, name
    for name in ASSERTIONS[side]:
        function = DOMAIN.tools.env_function(side, name)
        assert function is not None and function.kind is ToolKind.READ and not function.is_tool


def test_every_tool_has_a_description_and_documented_arguments() -> None:
    for schema in DOMAIN.tools.schemas((Side.AGENT, Side.USER)):
        function = schema["function"]
        assert function["description"], function["name"]
        for name, prop in function["parameters"]["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} is undocumented"


def test_env_functions_are_never_shown_as_tools() -> None:
    tools = {tool.name for tool in DOMAIN.tools.tools()}
    assert "set_user_info" not in tools and "assert_service_status" not in tools


def test_unknown_policy_variant_is_a_user_input_error() -> None:
    assert DOMAIN.policy is not None
    with pytest.raises(UserInputError, match="unknown telecom policy variant 'handbook'"):
        DOMAIN.policy(False, "handbook")
