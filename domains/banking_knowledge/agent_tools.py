"""The agent's always-visible tools (the retrieval tools of a configuration come on top, see
`knowledge`), with τ²-bench's behaviour and result texts: every result is text, and refusals are text
starting with `Error:` or `Failed`, not failed calls (R)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tau2 import Side, ToolKind, ToolSet

from . import discoverable
from .records import CURRENT_TIME, put, query, update
from .state import BankDB

AGENT_TOOLS = ToolSet(Side.AGENT)

TRANSFER_REASONS: tuple[str, ...] = (
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
)
TransferReason = Annotated[str, Field(json_schema_extra={"enum": list(TRANSFER_REASONS)})]
"""Shown to the model as an enum, but any text is accepted and an unknown one answered in words (R)."""


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def transfer_to_human_agents(state: BankDB, summary: str, reason: TransferReason = "other") -> str:
    """Hand the customer over to a human agent. The knowledge base says which reason code applies;
    look it up before transferring.

    Args:
        summary: What the customer needs and what has been tried so far.
        reason: The reason code for the transfer.
    """
    if reason not in TRANSFER_REASONS:
        return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(TRANSFER_REASONS)}"
    return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."


@AGENT_TOOLS.tool(ToolKind.READ)
def get_current_time(state: BankDB) -> str:
    """The current date and time, e.g. for the timestamp of a verification record."""
    return CURRENT_TIME


@AGENT_TOOLS.tool(ToolKind.READ)
def get_user_information_by_id(state: BankDB, user_id: str) -> str:
    """A customer's profile (name, address, email, phone number, date of birth) by user id.

    Args:
        user_id: The customer's user id.
    """
    return query(state, "users", "user_id", user_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_user_information_by_name(state: BankDB, customer_name: str) -> str:
    """A customer's profile (name, address, email, phone number, date of birth) by full name; the name
    must match exactly, capitals included.

    Args:
        customer_name: The customer's full name.
    """
    return query(state, "users", "name", customer_name)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_user_information_by_email(state: BankDB, email: str) -> str:
    """A customer's profile (name, address, email, phone number, date of birth) by email address.

    Args:
        email: The customer's email address.
    """
    return query(state, "users", "email", email)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def change_user_email(state: BankDB, user_id: str, new_email: str) -> str:
    """Replace a customer's email address.

    Args:
        user_id: The customer whose email changes.
        new_email: The new email address.
    """
    if user_id not in state.users.data:
        return f"Error: User with ID '{user_id}' not found."
    update(state.users, user_id, email=new_email)
    return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"


@AGENT_TOOLS.tool(ToolKind.READ)
def get_referrals_by_user(state: BankDB, user_id: str) -> str:
    """Every referral a customer has made.

    Args:
        user_id: The referring customer's user id.
    """
    return query(state, "referrals", "referrer_id", user_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_credit_card_transactions_by_user(state: BankDB, user_id: str) -> str:
    """Every credit card transaction of a customer.

    Args:
        user_id: The customer's user id.
    """
    return query(state, "credit_card_transaction_history", "user_id", user_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_credit_card_accounts_by_user(state: BankDB, user_id: str) -> str:
    """Every credit card account of a customer: card type, opening date, balance and reward points.

    Args:
        user_id: The customer's user id.
    """
    return query(state, "credit_card_accounts", "user_id", user_id)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def log_verification(
    state: BankDB,
    name: str,
    user_id: str,
    address: str,
    email: str,
    phone_number: str,
    date_of_birth: str,
    time_verified: str,
) -> str:
    """Record that a customer's identity was verified (two of date of birth, email, phone number and
    address confirmed). Call it once the customer is verified.

    Args:
        name: The customer's full name.
        user_id: The customer's user id.
        address: The customer's address on file.
        email: The customer's email on file.
        phone_number: The customer's phone number on file.
        date_of_birth: The customer's date of birth, MM/DD/YYYY.
        time_verified: When the verification happened, e.g. "2025-11-14 03:40:00 EST".
    """
    suffix = time_verified.replace(" ", "_").replace(":", "").replace("-", "")
    record = {
        "name": name,
        "user_id": user_id,
        "address": address,
        "email": email,
        "phone_number": phone_number,
        "date_of_birth": date_of_birth,
        "time_verified": time_verified,
    }
    if not put(state.verification_history, f"{user_id}_{suffix}", record):
        return "Failed to log verification: Record may already exist."
    return (
        f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n  - Verified at: "
        f"{time_verified}"
    )


@AGENT_TOOLS.tool(ToolKind.WRITE)
def give_discoverable_user_tool(state: BankDB, discoverable_tool_name: str, arguments: str = "{}") -> str:
    """Hand the customer a tool the knowledge base says the customer should use themselves; the
    customer can then call it.

    Args:
        discoverable_tool_name: The tool's name as the knowledge base gives it.
        arguments: The suggested arguments as a JSON object in a string, e.g. '{"user_id": "abc123"}'.
    """
    return discoverable.give_user_tool(state, discoverable_tool_name, arguments)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def unlock_discoverable_agent_tool(state: BankDB, agent_tool_name: str) -> str:
    """Unlock an internal tool the knowledge base names; the result describes its parameters.

    Args:
        agent_tool_name: The tool's name as the knowledge base gives it, e.g. "example_tool_1234".
    """
    return discoverable.unlock_agent_tool(state, agent_tool_name)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def call_discoverable_agent_tool(state: BankDB, agent_tool_name: str, arguments: str = "{}") -> str:
    """Call an internal tool unlocked earlier with `unlock_discoverable_agent_tool`.

    Args:
        agent_tool_name: The unlocked tool's name.
        arguments: The tool's arguments as a JSON object in a string, e.g. '{"user_id": "abc123"}'.
    """
    return discoverable.call_agent_tool(state, agent_tool_name, arguments)


@AGENT_TOOLS.tool(ToolKind.READ)
def list_discoverable_agent_tools(state: BankDB) -> str:
    """The internal tools whose calls have been recorded so far."""
    return discoverable.list_agent_tools(state)
