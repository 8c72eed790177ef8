"""Hidden agent tools on bank accounts: opening and closing, transfers, credits, interest reports,
transaction history and ATM deposit images."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from .discoverable import Effect, agent_tool
from .records import NOW, TODAY, account_balance, det_id, found, listing, matching, put, query, update
from .state import BankDB, Record

ACCOUNT_TYPES = ["checking", "savings", "business_checking", "business_savings"]

EARLY_CLOSURE: dict[str, dict[str, tuple[int, int]]] = {
    "checking": {
        "Light Blue Account": (15, 30),
        "Light Green Account": (15, 30),
        "Green Fee-Free Account": (15, 30),
        "Blue Account": (25, 60),
        "Green Account": (25, 60),
        "Evergreen Account": (50, 90),
        "Bluest Account": (100, 180),
    },
    "savings": {
        "Bronze Account": (20, 60),
        "Silver Account": (35, 90),
        "Silver Plus Account": (35, 90),
        "Gold Account": (75, 180),
        "Gold Plus Account": (75, 180),
        "Gold Years Account": (75, 180),
        "Platinum Account": (150, 270),
        "Platinum Plus Account": (150, 270),
        "Diamond Elite Account": (150, 270),
    },
}
"""Early-closure fee and window in days, by account class and product."""

ATM_IMAGES_FILE = Path(__file__).parent / "atm_images.json"
"""Scanned envelope contents of a few ATM deposits of τ²-bench's data, keyed by transaction id."""


def _age_days(account: Record) -> int:
    """Days since the account opened by the frozen clock; 0 when the date cannot be read."""
    try:
        return (NOW - datetime.strptime(account.get("date_opened", ""), "%m/%d/%Y")).days
    except ValueError:
        return 0


def _kind(account: Record) -> Any:
    """An account's type: `account_type` (accounts opened by the tools), else its `class`."""
    return account.get("account_type", account.get("class", ""))


def _eligible(accounts: list[Record], account_type: str) -> bool:
    """Whether a customer with these accounts may open one of `account_type`."""
    if account_type == "savings":
        return any(
            _kind(account) in ("checking", "personal_checking")
            and account.get("status", "") in ("OPEN", "ACTIVE")
            and _age_days(account) >= 14
            for account in accounts
        )
    if account_type == "business_checking":
        if any(account.get("status") == "CLOSED" for account in accounts):
            return False
        return any(
            _kind(account) in ("checking", "personal_checking")
            and account.get("status", "") in ("OPEN", "ACTIVE")
            for account in accounts
        )
    if account_type == "business_savings":
        if any(account_balance(account) < 0 for account in accounts):
            return False
        return any(
            _kind(account) == "business_checking"
            and account.get("status", "") in ("OPEN", "ACTIVE")
            and _age_days(account) >= 30
            for account in accounts
        )
    return True


@agent_tool(Effect.WRITE)
def open_bank_account_4821(state: BankDB, user_id: str, account_type: str, account_class: str) -> str:
    if not user_id or not account_type or not account_class:
        return "Error: Missing required parameters."
    if account_type not in ACCOUNT_TYPES:
        return f"Error: Invalid account_type. Must be one of: {ACCOUNT_TYPES}"
    owned = [account for account in state.accounts.data.values() if account.get("user_id") == user_id]
    if not _eligible(owned, account_type):
        return "Error: Account eligibility requirements not met."
    account_id = det_id(f"account:{user_id}:{account_type}:{account_class}")
    record = {
        "account_id": account_id,
        "user_id": user_id,
        "account_type": account_type,
        "account_class": account_class,
        "current_holdings": "0.00",
        "status": "OPEN",
        "date_opened": TODAY,
    }
    if not put(state.accounts, account_id, record):
        return f"Failed to open account: Account ID '{account_id}' may already exist."
    return (
        "Bank account opened successfully!\n"
        f"  - Account ID: {account_id}\n"
        f"  - User ID: {user_id}\n"
        f"  - Account Type: {account_type}\n"
        f"  - Account Class: {account_class}\n"
        "  - Status: OPEN\n"
        "  - Initial Balance: $0.00\n"
        f"  - Date Opened: {TODAY}"
    )


@agent_tool(Effect.WRITE)
def close_bank_account_7392(
    state: BankDB,
    account_id: str,
    reason: str = "Customer requested closure",
    waive_early_closure_fee: bool = False,
) -> str:
    if not account_id:
        return "Error: Missing required parameter (account_id)."
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("status") == "CLOSED":
        return f"Error: Account '{account_id}' is already closed."
    balance = account_balance(account)
    fee = 0.0
    if not waive_early_closure_fee:
        schedule = EARLY_CLOSURE.get(account.get("class", ""), {}).get(account.get("level", ""))
        opened = account.get("date_opened", "")
        if schedule and opened:
            required_fee, window = schedule
            try:
                age = (NOW - datetime.strptime(opened, "%m/%d/%Y")).days
            except ValueError:
                age = None
            if age is not None and age < window:
                if balance < required_fee:
                    return "Error: Account unable to be closed."
                fee = required_fee
    if balance - fee != 0:
        return f"Error: Account balance must be $0.00 before closing. Current balance: ${balance:.2f}"
    closed = update(
        state.accounts,
        account_id,
        status="CLOSED",
        date_closed=TODAY,
        closure_reason=reason,
        early_closure_fee_waived=waive_early_closure_fee,
    )
    return (
        "Bank account closed successfully!\n"
        f"  - Account ID: {account_id}\n"
        f"  - Account Type: {closed.get('account_type', 'N/A')}\n"
        f"  - Account Class: {closed.get('account_class', 'N/A')}\n"
        "  - Status: CLOSED\n"
        f"  - Date Closed: {TODAY}\n"
        f"  - Reason: {reason}\n"
        f"  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}"
    )


@agent_tool(Effect.READ)
def get_all_user_accounts_by_user_id_3847(state: BankDB, user_id: str) -> str:
    if not user_id:
        return "Error: Missing required parameter: user_id"
    accounts = query(state, "accounts", "user_id", user_id)
    cards = query(state, "credit_card_accounts", "user_id", user_id)
    parts = [
        "User accounts retrieved successfully.",
        "",
        "Executed: get_all_user_accounts_by_user_id_3847",
        f"Accounts for user {user_id}:",
        "",
        "Bank Accounts:",
        accounts if found(accounts) else "  No bank accounts found.",
        "\nCredit Card Accounts:",
        cards if found(cards) else "  No credit card accounts found.",
    ]
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def transfer_funds_between_bank_accounts_7291(
    state: BankDB, source_account_id: str, destination_account_id: str, amount: float
) -> str:
    if not source_account_id or not destination_account_id or amount is None:
        return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
    try:
        amount = float(amount)
    except (ValueError, TypeError):
        return f"Error: Invalid amount '{amount}'. Must be a number."
    if amount <= 0:
        return "Error: Transfer amount must be positive."
    if source_account_id == destination_account_id:
        return "Error: Source and destination accounts cannot be the same."
    source = state.accounts.data.get(source_account_id)
    if source is None:
        return f"Error: Source account '{source_account_id}' not found."
    destination = state.accounts.data.get(destination_account_id)
    if destination is None:
        return f"Error: Destination account '{destination_account_id}' not found."
    if source.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Source account '{source_account_id}' is not active."
    if destination.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Destination account '{destination_account_id}' is not active."
    source_balance = account_balance(source)
    if source_balance < amount:
        return (
            f"Error: Insufficient funds. Source account balance is ${source_balance:.2f}, "
            f"but transfer amount is ${amount:.2f}."
        )
    new_source = source_balance - amount
    new_destination = account_balance(destination) + amount
    update(state.accounts, source_account_id, current_holdings=f"${new_source:.2f}")
    update(state.accounts, destination_account_id, current_holdings=f"${new_destination:.2f}")
    return (
        "Transfer completed successfully!\n"
        f"  - Amount: ${amount:.2f}\n"
        f"  - From: {source_account_id} (new balance: ${new_source:.2f})\n"
        f"  - To: {destination_account_id} (new balance: ${new_destination:.2f})"
    )


def _credit(
    state: BankDB,
    account_id: str,
    amount: Any,
    credit_type: str,
    *,
    types: dict[str, str],
    classes: tuple[str, ...],
    not_class: str,
    seed: str,
    balance_prefix: str,
) -> str:
    """Credit a checking or savings account and record the credit as a posted transaction."""
    if not account_id or amount is None or not credit_type:
        return "Error: Missing required parameters."
    try:
        amount = float(amount)
    except (TypeError, ValueError):
        return "Error: Invalid credit amount. Must be a number."
    if amount <= 0:
        return "Error: Credit amount must be positive."
    valid = list(types)  # a list, as τ²-bench's: any value can be looked for in it
    if credit_type not in valid:
        return f"Error: Invalid credit_type. Must be one of: {valid}"
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("class", "").lower() not in classes:
        return not_class.format(account_id=account_id)
    if account.get("status") not in ("ACTIVE", "OPEN"):
        return f"Error: Account '{account_id}' is not active."
    balance = account_balance(account)
    new_balance = balance + amount
    update(state.accounts, account_id, current_holdings=f"{balance_prefix}{new_balance:.2f}")
    identifier = f"txn_{det_id(f'{seed}:{account_id}:{credit_type}:{amount}:{TODAY}')}"
    state.bank_account_transaction_history.data[identifier] = {
        "transaction_id": identifier,
        "account_id": account_id,
        "date": TODAY,
        "description": types[credit_type],
        "amount": amount,
        "type": credit_type,
        "status": "posted",
    }
    return (
        "\nCredit applied successfully!\n"
        f"  - Transaction ID: {identifier}\n"
        f"  - Account: {account_id}\n"
        f"  - Credit Type: {credit_type}\n"
        f"  - Amount: ${amount:.2f}\n"
        f"  - Previous Balance: ${balance:.2f}\n"
        f"  - New Balance: ${new_balance:.2f}"
    )


@agent_tool(Effect.WRITE)
def apply_checking_account_credit_5829(
    state: BankDB, account_id: str, amount: float, credit_type: str
) -> str:
    return _credit(
        state,
        account_id,
        amount,
        credit_type,
        types={
            "rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE",
            "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
        },
        classes=("checking",),
        not_class=(
            "Error: Account '{account_id}' is not a checking account. Credits can only be applied to "
            "checking accounts."
        ),
        seed="checking_credit",
        balance_prefix="$",
    )


@agent_tool(Effect.WRITE)
def apply_savings_account_credit_6831(state: BankDB, account_id: str, amount: float, credit_type: str) -> str:
    return _credit(
        state,
        account_id,
        amount,
        credit_type,
        types={
            "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
            "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
            "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE",
        },
        classes=("saving", "savings"),
        not_class=(
            "Error: Account '{account_id}' is not a savings account. This tool only applies to savings "
            "accounts."
        ),
        seed="savings_credit",
        balance_prefix="",
    )


@agent_tool(Effect.WRITE)
def submit_interest_discrepancy_report_7294(
    state: BankDB,
    account_id: str,
    user_id: str,
    expected_apy: float,
    actual_apy: float,
    amount_difference: float,
) -> str:
    if (
        not account_id
        or not user_id
        or expected_apy is None
        or actual_apy is None
        or amount_difference is None
    ):
        return "Error: Missing required parameters."
    try:
        expected_apy, actual_apy = float(expected_apy), float(actual_apy)
        amount_difference = float(amount_difference)
    except (ValueError, TypeError):
        return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    user = state.users.data.get(user_id)
    if user is None:
        return f"Error: User '{user_id}' not found."
    report_id = f"IDR_{det_id(f'interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{TODAY}')}"
    # τ²-bench writes the report to a table its database does not have, so nothing is stored (R).
    level = account.get("level", "Unknown")
    return (
        "\nInterest Discrepancy Report Submitted Successfully!\n"
        f"  - Report ID: {report_id}\n"
        f"  - Account: {account_id} ({level})\n"
        f"  - Customer: {user.get('name', 'Unknown')}\n"
        f"  - Expected APY: {expected_apy}%\n"
        f"  - Actual APY: {actual_apy}%\n"
        f"  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
        f"  - Amount Difference: ${amount_difference:.2f}\n"
        "  - Status: PENDING_REVIEW\n"
        "\nThe backend team will investigate this discrepancy and ensure "
        "correct APY calculations are applied going forward."
    )


def _posted_at(record: Record) -> datetime:
    """When a bank transaction happened, for newest-first order; unreadable dates sort oldest."""
    text = str(record.get("date", ""))
    for pattern in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
        try:
            return datetime.strptime(text, pattern)
        except ValueError:
            continue
    return datetime.min


@agent_tool(Effect.READ)
def get_bank_account_transactions_9173(state: BankDB, account_id: str) -> str:
    if not account_id:
        return "Error: Missing required parameter: account_id"
    if account_id not in state.accounts.data:
        return f"Error: Account '{account_id}' not found."
    rows = matching(state.bank_account_transaction_history, {"account_id": account_id})
    rows.sort(key=lambda row: _posted_at(row[1]), reverse=True)
    text = listing("bank_account_transaction_history", rows)
    parts = [
        "Bank account transactions retrieved successfully.",
        "",
        "Executed: get_bank_account_transactions_9173",
        f"Transactions for account {account_id}:",
        text if found(text) else "\nNo transactions found for this account.",
    ]
    return "\n".join(parts)


@cache
def _atm_images() -> dict[str, dict[str, str]]:
    images: dict[str, dict[str, str]] = json.loads(ATM_IMAGES_FILE.read_text(encoding="utf-8"))
    return images


@agent_tool(Effect.READ)
def get_atm_deposit_images_8473(state: BankDB, transaction_id: str) -> str:
    if not transaction_id:
        return "Error: Missing required parameter: transaction_id"
    transaction = state.bank_account_transaction_history.data.get(transaction_id)
    if transaction is None:
        return f"Error: Transaction '{transaction_id}' not found."
    if transaction.get("type") != "atm_deposit":
        return (
            f"Error: Transaction '{transaction_id}' is not an ATM deposit. This tool only works for ATM "
            "deposit transactions."
        )
    description = transaction.get("description", "")
    if "RHO-BANK" not in description.upper() and "RHOBANK" not in description.upper():
        return (
            f"Error: Transaction '{transaction_id}' is from a third-party ATM. Deposit images are only "
            "available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be "
            "submitted to the ATM network."
        )
    date = transaction.get("date", "Unknown")
    images = _atm_images().get(transaction_id)
    header = (
        "ATM Deposit Image Retrieval Results\n=====================================\nTransaction ID: "
        f"{transaction_id}\n"
    )
    if images is not None:
        return (
            f"{header}ATM: {images['atm_id']}\nDeposit Date: {date}\n\n{images['envelope_contents']}\n\n"
            f"--- VERIFICATION NOTES ---\n{images['verification_notes']}\n"
        )
    return (
        f"{header}ATM: {description}\nDeposit Date: {date}\n"
        f"Amount Recorded: ${abs(transaction.get('amount', 0)):.2f}\n\n"
        "--- IMAGE STATUS ---\n"
        "Status: IMAGES NOT AVAILABLE\n"
        "Reason: Deposit images for this transaction have either expired (older than 90 days) or were not "
        "captured by the ATM system.\n\n"
        "For deposits without available images, the dispute will proceed based on customer statement and ATM "
        "journal records only. Investigation timeline may be extended.\n"
    )
