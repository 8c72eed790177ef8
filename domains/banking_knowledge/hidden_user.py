"""Hidden customer tools: actions the customer takes on their side once the agent hands the tool over.
Each checks it was handed over, then logs the call (before validating, so a refused call is logged
too) (R), then acts."""

from __future__ import annotations

import hashlib
from typing import Any

from .discoverable import Effect, log_user_call, not_given, user_tool
from .hidden_credit import dispute_id
from .records import TODAY, account_balance, det_id, found, json_block, put, query, update
from .state import BankDB


def _begin(state: BankDB, name: str, arguments: dict[str, Any]) -> str | None:
    """Refuse a tool not handed over; otherwise log the call and return None."""
    refusal = not_given(state, name)
    if refusal is None:
        log_user_call(state, name, arguments)
    return refusal


def _executed(message: str, name: str, arguments: dict[str, Any]) -> str:
    return f"{message}\n\nExecuted: {name}\nArguments: {json_block(arguments)}\n"


@user_tool(Effect.WRITE)
def submit_cash_back_dispute_0589(state: BankDB, user_id: str, transaction_id: str) -> str:
    name, arguments = "submit_cash_back_dispute_0589", {"user_id": user_id, "transaction_id": transaction_id}
    refusal = _begin(state, name, arguments)
    if refusal is not None:
        return refusal
    identifier = dispute_id(user_id, transaction_id)
    settings = state.task_config.data.get("dispute_settings", {})
    record: dict[str, Any] = {
        "dispute_id": identifier,
        "user_id": user_id,
        "transaction_id": transaction_id,
        "submitted_at": TODAY,
    }
    if settings.get("auto_resolve_disputes", False):
        record.update(status="RESOLVED", resolution="APPROVED")
        status = (
            "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to "
            "be updated."
        )
    else:
        record.update(status="SUBMITTED")
        status = "Status: SUBMITTED - Your dispute has been queued for review."
    text = _executed(
        "Cash back dispute submitted successfully. Your case has been queued for review.", name, arguments
    )
    if put(state.cash_back_disputes, identifier, record):
        return f"{text}Dispute ID: {identifier}\n{status}"
    return f"{text}Note: Dispute may have already been submitted for this transaction."


@user_tool(Effect.WRITE)
def get_referral_link(state: BankDB, user_id: str, card_name: str) -> str:
    name, arguments = "get_referral_link", {"user_id": user_id, "card_name": card_name}
    refusal = _begin(state, name, arguments)
    if refusal is not None:
        return refusal
    referral_id = det_id(f"referral_link:{user_id}:{card_name}")
    record = {
        "referral_id": referral_id,
        "referrer_id": user_id,
        "referred_account_type": card_name,
        "referral_status": "NO_PROGRESS",
        "date": TODAY,
    }
    text = _executed(
        "Referral link generated successfully. Share this link with the person you want to refer.",
        name,
        arguments,
    )
    if put(state.referrals, referral_id, record):
        return f"{text}Referral ID: {referral_id}\nReferral link: https://rhobank.com/refer/{referral_id}"
    return f"{text}Note: A referral link for this card may have already been generated."


@user_tool(Effect.READ)
def get_card_last_4_digits(state: BankDB, credit_card_account_id: str) -> str:
    name, arguments = "get_card_last_4_digits", {"credit_card_account_id": credit_card_account_id}
    refusal = _begin(state, name, arguments)
    if refusal is not None:
        return refusal
    if not found(query(state, "credit_card_accounts", "account_id", credit_card_account_id)):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    digest = hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest()
    last_4 = "".join(char for char in digest if char.isdigit())[:4].ljust(4, "0")
    return (
        f"{_executed('Card information retrieved successfully.', name, arguments)}Last 4 digits of card: "
        f"{last_4}"
    )


@user_tool(Effect.WRITE)
def deposit_check_3847(state: BankDB, account_id: str, check_amount: float) -> str:
    name, arguments = "deposit_check_3847", {"account_id": account_id, "check_amount": check_amount}
    refusal = _begin(state, name, arguments)
    if refusal is not None:
        return refusal
    try:
        amount = float(check_amount)
    except (ValueError, TypeError):
        return f"Error: Invalid check amount '{check_amount}'. Must be a number."
    if amount <= 0:
        return "Error: Check amount must be positive."
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Account '{account_id}' is not active."
    balance = account_balance(account)
    new_balance = balance + amount
    update(state.accounts, account_id, current_holdings=f"${new_balance:.2f}")
    return (
        f"{_executed(DEPOSITED, name, arguments)}"
        "Check deposit processed!\n"
        f"  - Account: {account_id}\n"
        f"  - Check Amount: ${amount:.2f}\n"
        f"  - Previous Balance: ${balance:.2f}\n"
        f"  - New Balance: ${new_balance:.2f}"
    )


DEPOSITED = (
    "Check deposited successfully. Funds will be available according to your account's deposit policy."
)
