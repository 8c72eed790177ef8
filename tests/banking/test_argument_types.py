"""Hidden tools take their arguments as τ²-bench's do: as given, never converted where τ²-bench converts
nothing. A value of the wrong type fails where Python fails it there, with Python's own words: a
`TypeError` is answered in words by the wrapper and the call is not logged; any other exception fails the
call; what the tool wrote before stays (a customer tool logs its call first)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tau2 import ErrorCode, Side, World
from tau2.domains.banking_knowledge.state import BankDB

COMPARE_TEXT = "Error: Invalid arguments: '<=' not supported between instances of 'str' and 'int'"


def _call(world: World, name: str, arguments: dict[str, Any]) -> Any:
    world.call(Side.AGENT, "unlock_discoverable_agent_tool", {"agent_tool_name": name})
    return world.call(
        Side.AGENT,
        "call_discoverable_agent_tool",
        {"agent_tool_name": name, "arguments": json.dumps(arguments)},
    )


def _state(world: World) -> BankDB:
    assert isinstance(world.state, BankDB)
    return world.state


DEBIT_DISPUTE = {
    "transaction_id": "btxn_1",
    "account_id": "chk_ada_blue",
    "card_id": "dbc_ada_blue",
    "user_id": "u_ada_quinn",
    "dispute_category": "unauthorized_transaction",
    "transaction_date": "11/01/2025",
    "discovery_date": "11/10/2025",
    "transaction_type": "online_purchase",
    "card_in_possession": True,
    "pin_compromised": "no",
    "contacted_merchant": False,
    "police_report_filed": False,
    "written_statement_provided": True,
    "provisional_credit_eligible": True,
    "customer_max_liability_amount": 50,
    "card_action": "keep_active",
}


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("file_debit_card_transaction_dispute_6281", {**DEBIT_DISPUTE, "disputed_amount": "100"}),
        (
            "apply_statement_credit_8472",
            {
                "user_id": "u_ada_quinn",
                "credit_card_account_id": "cc_ada_gold",
                "amount": "100",
                "reason": "other",
            },
        ),
    ],
)
def test_a_number_written_as_text_is_refused_and_nothing_is_logged(
    world: World, name: str, arguments: dict[str, Any]
) -> None:
    before = _state(world).model_dump()
    result = _call(world, name, arguments)
    assert result.error is None and result.content == COMPARE_TEXT
    assert _state(world).model_dump() == before  # no record, no log


def test_a_number_is_taken_as_given_where_the_reference_takes_it(world: World) -> None:
    result = _call(
        world, "file_debit_card_transaction_dispute_6281", {**DEBIT_DISPUTE, "disputed_amount": 100}
    )
    assert result.error is None and "Disputed Amount: $100.00" in result.content
    (dispute,) = _state(world).debit_card_disputes.data.values()
    assert dispute["disputed_amount"] == 100.0 and isinstance(
        dispute["disputed_amount"], float
    )  # read as 100.0


def test_a_credit_limit_that_is_no_number_fails_the_call_and_logs_nothing(world: World) -> None:
    arguments = {
        "credit_card_account_id": "cc_ada_gold",
        "user_id": "u_ada_quinn",
        "new_credit_limit": "lots",
    }
    before = _state(world).model_dump()
    result = _call(world, "approve_credit_limit_increase_5847", arguments)
    assert result.error is not None and result.error.message == "could not convert string to float: 'lots'"
    assert _state(world).model_dump() == before
    done = _call(world, "approve_credit_limit_increase_5847", {**arguments, "new_credit_limit": "7500"})
    assert done.error is None and "New Limit: $7500.00" in done.content  # τ²-bench converts this one


def test_an_id_that_is_no_text_fails_where_the_reference_joins_it(world: World) -> None:
    arguments = {"user_id": 2.5, "credit_card_account_id": "cc_ada_gold", "amount": 25, "reason": "other"}
    result = _call(world, "apply_statement_credit_8472", arguments)
    assert result.content == "Error: Invalid arguments: sequence item 1: expected str instance, float found"


def test_an_enumerated_value_of_any_type_is_looked_for_in_a_list(world: World) -> None:
    arguments = {"account_id": "chk_ada_blue", "amount": 5, "credit_type": {"a": 1}}
    result = _call(world, "apply_checking_account_credit_5829", arguments)
    assert result.content == "Error: Invalid credit_type. Must be one of: ['rebate_credit', 'fee_refund']"


def test_arguments_that_are_not_an_object_are_named_as_python_names_the_method(world: World) -> None:
    name = "get_user_dispute_history_7291"
    world.call(Side.AGENT, "unlock_discoverable_agent_tool", {"agent_tool_name": name})
    result = world.call(
        Side.AGENT, "call_discoverable_agent_tool", {"agent_tool_name": name, "arguments": "5"}
    )
    assert result.content == (
        "Error: Invalid arguments: tau2.domains.banking_knowledge.tools.KnowledgeTools."
        f"{name}() argument after ** must be a mapping, not float"
    )


def test_a_customer_tool_logs_its_call_before_a_wrong_type_fails_it(world: World) -> None:
    tool = "deposit_check_3847"
    world.call(Side.AGENT, "give_discoverable_user_tool", {"discoverable_tool_name": tool, "arguments": "{}"})
    arguments = json.dumps({"account_id": [], "check_amount": "25"})
    result = world.call(
        Side.USER, "call_discoverable_user_tool", {"discoverable_tool_name": tool, "arguments": arguments}
    )
    assert result.content == f"Error: Invalid arguments for tool '{tool}': unhashable type: 'list'"
    (logged,) = _state(world).user_discoverable_tool_calls.data.values()
    assert logged["arguments"] == {"account_id": [], "check_amount": "25"}


TOO_LONG = "1" * 5000
"""An integer longer than Python converts by default (4,300 digits): json.loads fails on it with a
`ValueError` that is not a decoding error, and the call fails with its text as τ²-bench's does."""


def test_an_integer_too_long_in_a_lookup_fails_the_call_with_pythons_words(world: World) -> None:
    crafted = f'nobody", "age": {TOO_LONG}, "x": "'
    result = world.call(Side.AGENT, "get_user_information_by_id", {"user_id": crafted})
    assert result.error is not None and result.error.code is ErrorCode.INVALID_ARGUMENT
    assert "Exceeds the limit (4300 digits) for integer string conversion" in result.error.message


def test_an_integer_too_long_in_a_given_tools_arguments_fails_the_call(world: World) -> None:
    arguments = f'{{"check_amount": {TOO_LONG}}}'
    result = world.call(
        Side.AGENT,
        "give_discoverable_user_tool",
        {"discoverable_tool_name": "deposit_check_3847", "arguments": arguments},
    )
    assert result.error is not None and result.error.code is ErrorCode.INVALID_ARGUMENT
    assert "Exceeds the limit (4300 digits)" in result.error.message
    assert not _state(world).user_discoverable_tools.data
