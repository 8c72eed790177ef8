"""The bank's tools on our own data: listings, verification records, the hidden-tool mechanism on both
seats (unlock, call, hand over, customer call) with τ²-bench's texts and logs, refusals as text, and
copy-on-write worlds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tau2 import (
    ErrorCode,
    InitialData,
    Side,
    TaskSetupError,
    World,
    check_domain,
    get_domain,
    initialize_world,
    load_task_file,
)
from tau2.domains.banking_knowledge import DEFAULT_TASKS, refusal
from tau2.domains.banking_knowledge.records import det_id
from tau2.domains.banking_knowledge.state import BankDB, merge_patch


def _agent(world: World, tool: str, /, **arguments: Any) -> str:
    result = world.call(Side.AGENT, tool, arguments)
    assert result.error is None, result.render()
    assert isinstance(result.content, str)
    return result.content


def _user(world: World, tool: str, /, **arguments: Any) -> str:
    result = world.call(Side.USER, tool, arguments)
    assert result.error is None, result.render()
    assert isinstance(result.content, str)
    return result.content


def _state(world: World) -> BankDB:
    assert isinstance(world.state, BankDB)
    return world.state


def test_a_profile_is_listed_in_the_query_format(world: World) -> None:
    text = _agent(world, "get_user_information_by_id", user_id="u_ada_quinn")
    assert text.startswith("Found 1 record(s) in 'users':\n\n1. Record ID: u_ada_quinn\n   name: Ada Quinn\n")
    assert (
        _agent(world, "get_user_information_by_name", customer_name="ada quinn")
        == "No records found in 'users'."
    )


def test_a_quote_in_a_lookup_breaks_its_json_as_in_the_reference(world: World) -> None:
    text = _agent(world, "get_user_information_by_email", email='x"y')
    assert text.startswith("Error: Invalid JSON: Expecting ',' delimiter")


def test_verification_is_recorded_once_under_user_and_time(world: World) -> None:
    arguments = {
        "name": "Ada Quinn",
        "user_id": "u_ada_quinn",
        "address": "a",
        "email": "e",
        "phone_number": "p",
        "date_of_birth": "d",
        "time_verified": "2025-11-14 03:40:00 EST",
    }
    assert _agent(world, "log_verification", **arguments).startswith("Verification logged successfully.")
    assert "u_ada_quinn_20251114_034000_EST" in _state(world).verification_history.data
    again = _agent(world, "log_verification", **arguments)
    assert again == "Failed to log verification: Record may already exist."
    assert refusal(world.call(Side.AGENT, "log_verification", arguments)) == again


def test_a_hidden_tool_must_be_known_and_unlocked_before_it_runs(world: World) -> None:
    assert _agent(world, "unlock_discoverable_agent_tool", agent_tool_name="nope_0000") == (
        "Error: Unknown agent tool 'nope_0000'. This tool is not available."
    )
    locked = _agent(world, "call_discoverable_agent_tool", agent_tool_name="open_bank_account_4821")
    assert locked.startswith("Error: Tool 'open_bank_account_4821' has not been unlocked.")
    card = _agent(world, "unlock_discoverable_agent_tool", agent_tool_name="open_bank_account_4821")
    assert card.startswith("Tool unlocked: open_bank_account_4821\nDescription: Open a new bank account")
    assert "  - account_class: string (required) - The full official account class name" in card
    arguments = json.dumps(
        {"user_id": "u_ada_quinn", "account_type": "savings", "account_class": "Silver Account"}
    )
    opened = _agent(
        world, "call_discoverable_agent_tool", agent_tool_name="open_bank_account_4821", arguments=arguments
    )
    assert opened.startswith("Bank account opened successfully!")
    account_id = det_id("account:u_ada_quinn:savings:Silver Account")
    assert _state(world).accounts.data[account_id]["account_class"] == "Silver Account"
    assert _state(world).agent_discoverable_tools.data == {
        det_id("agent_discoverable_tool:open_bank_account_4821"): {
            "tool_name": "open_bank_account_4821",
            "status": "CALLED",
        }
    }


def test_argument_mistakes_answer_pythons_own_words(world: World) -> None:
    _agent(world, "unlock_discoverable_agent_tool", agent_tool_name="close_debit_card_4721")

    def call(arguments: str) -> str:
        return _agent(
            world,
            "call_discoverable_agent_tool",
            agent_tool_name="close_debit_card_4721",
            arguments=arguments,
        )

    assert call("{}") == (
        "Error: Invalid arguments: KnowledgeTools.close_debit_card_4721() missing 2 required positional "
        "arguments: 'card_id' and 'reason'"
    )
    assert call('{"card_id": "x", "reason": "lost", "why": 1}') == (
        "Error: Invalid arguments: KnowledgeTools.close_debit_card_4721() got an unexpected keyword "
        "argument 'why'"
    )
    assert call("{oops").startswith("Error: Invalid JSON in arguments: Expecting property name")
    assert _state(world).agent_discoverable_tools.data == {}  # a call that never ran is not logged


def test_reads_are_logged_only_when_the_task_allowlist_names_them(world: World) -> None:
    arguments = json.dumps({"user_id": "u_ada_quinn"})
    name = "get_all_user_accounts_by_user_id_3847"
    _agent(world, "unlock_discoverable_agent_tool", agent_tool_name=name)
    listing = _agent(world, "call_discoverable_agent_tool", agent_tool_name=name, arguments=arguments)
    assert "Record ID: chk_ada_blue" in listing
    assert _state(world).agent_discoverable_tools.data == {}
    _state(world).set_read_log_allowlist(frozenset({name}))
    _agent(world, "call_discoverable_agent_tool", agent_tool_name=name, arguments=arguments)
    assert [row["tool_name"] for row in _state(world).agent_discoverable_tools.data.values()] == [name]


def test_numbers_reach_hidden_tools_as_floats(world: World) -> None:
    name = "submit_credit_limit_increase_request_7392"
    _agent(world, "unlock_discoverable_agent_tool", agent_tool_name=name)
    arguments = json.dumps(
        {"credit_card_account_id": "cc_ada_gold", "user_id": "u_ada_quinn", "requested_increase_amount": 2500}
    )
    text = _agent(world, "call_discoverable_agent_tool", agent_tool_name=name, arguments=arguments)
    assert "Requested Increase: $2,500" in text
    (request,) = _state(world).credit_limit_increase_requests.data.values()
    assert request["requested_increase_amount"] == 2500


def test_a_customer_tool_works_only_once_handed_over_and_logs_every_call(world: World) -> None:
    tool = "deposit_check_3847"
    arguments = json.dumps({"account_id": "chk_ada_blue", "check_amount": -5})
    refused = _user(world, "call_discoverable_user_tool", discoverable_tool_name=tool, arguments=arguments)
    assert refused.startswith(f"Error: Tool '{tool}' has not been given to you by the agent.")
    assert _agent(
        world, "give_discoverable_user_tool", discoverable_tool_name=tool, arguments='{"amount": 1}'
    ) == ("Error: Unexpected parameter: amount")
    given = _agent(world, "give_discoverable_user_tool", discoverable_tool_name=tool)
    assert given.startswith(f"Tool given to user: {tool}\nDescription: Deposit a check")
    assert "Arguments: (no arguments)" in given
    assert _user(world, "list_discoverable_user_tools").startswith(
        "Tools given to you by the agent:\nFound 1 record(s)"
    )
    negative = _user(world, "call_discoverable_user_tool", discoverable_tool_name=tool, arguments=arguments)
    assert negative == "Error: Check amount must be positive."
    (logged,) = _state(world).user_discoverable_tool_calls.data.values()
    assert logged["arguments"] == {
        "account_id": "chk_ada_blue",
        "check_amount": -5.0,
    }  # logged though refused
    missing = _user(world, "call_discoverable_user_tool", discoverable_tool_name=tool, arguments="{}")
    assert missing == "Error: Missing required parameter: account_id"
    deposit = json.dumps({"account_id": "chk_ada_blue", "check_amount": 100})
    done = _user(world, "call_discoverable_user_tool", discoverable_tool_name=tool, arguments=deposit)
    assert done.endswith("  - Previous Balance: $2150.00\n  - New Balance: $2250.00")
    assert _state(world).accounts.data["chk_ada_blue"]["current_holdings"] == "$2250.00"


def test_the_transfer_counts_only_with_a_valid_reason(world: World) -> None:
    bad = world.call(Side.AGENT, "transfer_to_human_agents", {"summary": "s", "reason": "boredom"})
    assert refusal(bad) is not None and bad.content.startswith("Error: Invalid transfer reason 'boredom'.")
    good = world.call(Side.AGENT, "transfer_to_human_agents", {"summary": "s"})
    assert refusal(good) is None and good.content == (
        "Transfer successful (reason: other). A human agent will assist you shortly."
    )


def test_an_exception_inside_a_hidden_tool_fails_the_call(world: World) -> None:
    name = "reset_debit_card_pin_6284"
    _agent(world, "unlock_discoverable_agent_tool", agent_tool_name=name)
    arguments = json.dumps({"card_id": "dbc_ada_blue", "last_4_digits": 3318, "new_pin": "4826"})
    result = world.call(
        Side.AGENT, "call_discoverable_agent_tool", {"agent_tool_name": name, "arguments": arguments}
    )
    assert result.error is not None and result.error.code is ErrorCode.INVALID_ARGUMENT
    assert result.error.message == "'float' object has no attribute 'isdigit'"  # Python's, as τ²-bench's
    assert _state(world).agent_discoverable_tools.data == {}  # nothing logged


def test_worlds_share_records_but_never_each_others_changes() -> None:
    domain = get_domain("banking_knowledge")
    first, second = World.create(domain), World.create(domain)
    _agent(first, "change_user_email", user_id="u_bo_lindqvist", new_email="new@example.com")
    assert _state(second).users.data["u_bo_lindqvist"]["email"] == "bo.lindqvist@example.org"
    assert _state(World.create(domain)).users.data["u_bo_lindqvist"]["email"] == "bo.lindqvist@example.org"


def test_unlocked_tools_are_no_part_of_the_database(world: World) -> None:
    other = World.create(get_domain("banking_knowledge"))
    _agent(world, "unlock_discoverable_agent_tool", agent_tool_name="freeze_debit_card_3892")
    assert world.state == other.state
    assert world.fingerprint() == other.fingerprint()


def test_a_patch_merges_into_records_and_names_a_bad_table() -> None:
    state = World.create(get_domain("banking_knowledge")).state
    assert isinstance(state, BankDB)
    patched = merge_patch(state, {"accounts": {"data": {"chk_bo_green": {"current_holdings": "10.00"}}}})
    assert patched.accounts.data["chk_bo_green"]["level"] == "Green Account"
    assert patched.accounts.data["chk_bo_green"]["current_holdings"] == "10.00"
    assert state.accounts.data["chk_bo_green"]["current_holdings"] == "640.25"
    with pytest.raises(ValueError, match="loans: not a table"):
        merge_patch(state, {"loans": {"data": {}}})


def test_a_task_patching_an_unknown_table_fails_its_set_up() -> None:
    task = load_task_file(DEFAULT_TASKS)[0]
    broken = task.model_copy(update={"initial_data": InitialData(agent_data={"x": {}})})
    with pytest.raises(TaskSetupError, match="x: not a table"):
        initialize_world(broken)


def test_the_pack_passes_the_domain_checker() -> None:
    assert check_domain(get_domain("banking_knowledge")) == []


def test_arguments_that_are_no_object_fail_the_hand_over(world: World) -> None:
    result = world.call(
        Side.AGENT,
        "give_discoverable_user_tool",
        {"discoverable_tool_name": "deposit_check_3847", "arguments": "[{}]"},
    )
    assert result.error is not None and result.error.code is ErrorCode.INVALID_ARGUMENT
    assert _state(world).user_discoverable_tools.data == {}
