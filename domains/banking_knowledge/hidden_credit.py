"""Hidden agent tools on credit cards: transaction disputes, replacement cards, closures, statement
credits, account flags, payments from checking, and credit limit increases."""

from __future__ import annotations

from typing import Any

from .discoverable import Effect, agent_tool
from .records import TODAY, account_balance, det_id, found, json_block, put, query, title, update
from .state import BankDB

DISPUTE_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]
REPLACEMENT_REASONS = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
CLOSURE_REASONS = [
    "annual_fee",
    "not_using_card",
    "found_better_card",
    "unhappy_with_rewards",
    "simplifying_finances",
    "negative_experience",
    "other",
]
STATEMENT_CREDIT_REASONS = [
    "goodwill_adjustment",
    "promotional_credit",
    "annual_fee_reversal",
    "late_fee_reversal",
    "interest_charge_reversal",
    "dispute_resolution",
    "price_match",
    "retention_offer",
    "error_correction",
    "other",
]
FLAG_TYPES = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
FLAG_REASONS = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
DENIAL_REASONS = [
    "insufficient_account_age",
    "cooldown_period_active",
    "pending_disputes",
    "pending_replacement_card",
    "past_due_balance",
    "high_utilization",
    "insufficient_payment_history",
    "requested_amount_exceeds_limit",
    "other",
]


def dispute_id(user_id: str, transaction_id: str) -> str:
    """The id of a dispute, the same for every kind of dispute of a transaction by a user."""
    return f"dsp_{det_id(f'dispute:{user_id}:{transaction_id}', 12)}"


def transaction_id(user_id: str, card_type: str, merchant: str, amount: float, category: str) -> str:
    """The id of a credit card transaction (or statement credit); its parts are joined as text, so a part
    that is not text fails the call as it fails τ²-bench's (R)."""
    seed = ":".join(["transaction", user_id, card_type, merchant, f"{amount:.2f}", category])
    return f"txn_{det_id(seed, 12)}"


def _cli_request_id(account_id: str, user_id: str, amount: float) -> str:
    return f"cli_{det_id(f'cli_request:{account_id}:{user_id}:{amount:.2f}', 12)}"


def _card_account_missing(state: BankDB, account_id: str) -> bool:
    """Whether a lookup of the card account lists nothing (a malformed id lists an error, which counts
    as found, as in τ²-bench) (R)."""
    return not found(query(state, "credit_card_accounts", "account_id", account_id))


def _history(title_line: str, name: str, heading: str, listing: str, none_line: str) -> str:
    parts = [title_line, "", f"Executed: {name}", heading]
    parts.append(listing if found(listing) else none_line)
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def file_credit_card_transaction_dispute_4829(
    state: BankDB,
    transaction_id: str,
    card_action: str,
    card_last_4_digits: str,
    full_name: str,
    user_id: str,
    phone: str,
    email: str,
    address: str,
    contacted_merchant: bool,
    purchase_date: str,
    issue_noticed_date: str,
    dispute_reason: str,
    resolution_requested: str,
    eligible_for_provisional_credit: bool,
    partial_refund_amount: float | None = None,
) -> str:
    if not transaction_id or not user_id:
        return "Error: Missing required parameters."
    card_actions = ["keep_active", "cancel_and_reissue"]
    if card_action not in card_actions:
        return f"Error: Invalid card_action. Must be one of: {card_actions}"
    if dispute_reason not in DISPUTE_REASONS:
        return f"Error: Invalid dispute_reason. Must be one of: {DISPUTE_REASONS}"
    resolutions = ["full_refund", "partial_refund"]
    if resolution_requested not in resolutions:
        return f"Error: Invalid resolution_requested. Must be one of: {resolutions}"
    if resolution_requested == "partial_refund" and partial_refund_amount is None:
        return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
    identifier = dispute_id(user_id, transaction_id)
    record = {
        "dispute_id": identifier,
        "transaction_id": transaction_id,
        "user_id": user_id,
        "card_action": card_action,
        "card_last_4_digits": card_last_4_digits,
        "full_name": full_name,
        "phone": phone,
        "email": email,
        "address": address,
        "contacted_merchant": contacted_merchant,
        "purchase_date": purchase_date,
        "issue_noticed_date": issue_noticed_date,
        "dispute_reason": dispute_reason,
        "resolution_requested": resolution_requested,
        "partial_refund_amount": partial_refund_amount,
        "eligible_for_provisional_credit": eligible_for_provisional_credit,
        "provisional_credit_given": eligible_for_provisional_credit,
        "submitted_at": TODAY,
        "status": "SUBMITTED",
    }
    if not put(state.transaction_disputes, identifier, record):
        return "Error: Dispute may have already been filed for this transaction."
    parts = [
        "Credit card transaction dispute filed successfully. A case has been opened and will be reviewed "
        "within 10 business days.",
        "",
        "Executed: file_credit_card_transaction_dispute_4829",
        f"Dispute ID: {identifier}",
        f"Transaction: {transaction_id}",
        f"Reason: {title(dispute_reason)}",
        f"Resolution Requested: {title(resolution_requested)}",
    ]
    if partial_refund_amount:
        parts.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
    if eligible_for_provisional_credit:
        parts.append("Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days.")
    else:
        parts.append("Provisional Credit: Not eligible at this time.")
    return "\n".join(parts)


@agent_tool(Effect.READ)
def get_user_dispute_history_7291(state: BankDB, user_id: str) -> str:
    if not user_id:
        return "Error: Missing required parameter: user_id"
    return _history(
        "User transaction dispute history retrieved successfully.",
        "get_user_dispute_history_7291",
        f"Transaction dispute history for user {user_id}:",
        query(state, "transaction_disputes", "user_id", user_id),
        "\nNo transaction disputes found for this user.",
    )


@agent_tool(Effect.WRITE)
def order_replacement_credit_card_7291(
    state: BankDB,
    credit_card_account_id: str,
    user_id: str,
    shipping_address: str,
    reason: str,
    expedited_shipping: bool = False,
) -> str:
    if not credit_card_account_id or not user_id or not shipping_address or not reason:
        return (
            "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
        )
    if reason not in REPLACEMENT_REASONS:
        return f"Error: Invalid reason. Must be one of: {REPLACEMENT_REASONS}"
    if _card_account_missing(state, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    order_id = f"ccord_{det_id(f'credit_card_order:{credit_card_account_id}:{user_id}:{reason}', 12)}"
    record = {
        "order_id": order_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "shipping_address": shipping_address,
        "reason": reason,
        "expedited_shipping": expedited_shipping,
        "order_date": TODAY,
        "status": "ORDERED",
        "old_card_cancelled": True,
    }
    if not put(state.credit_card_orders, order_id, record):
        return "Error: Order may have already been placed for this card replacement."
    if credit_card_account_id in state.credit_card_accounts.data:
        update(state.credit_card_accounts, credit_card_account_id, status="CLOSED", closed_date=TODAY)
    method, delivery = (
        ("Expedited", "2-3 business days") if expedited_shipping else ("Standard", "7-10 business days")
    )
    return "\n".join(
        [
            f"Order ID: {order_id}",
            f"Card Account: {credit_card_account_id}",
            f"Reason: {title(reason)}",
            f"Shipping Address: {shipping_address}",
            f"Shipping Method: {method}",
            f"Expected Delivery: {delivery}",
            "",
            "The old card has been cancelled for security. The new card will have the same account number "
            "but "
            "a new card number and CVV.",
        ]
    )


@agent_tool(Effect.READ)
def get_pending_replacement_orders_5765(state: BankDB, credit_card_account_id: str) -> str:
    if not credit_card_account_id:
        return "Error: Missing required parameter: credit_card_account_id"
    return _history(
        "Pending replacement orders check completed.",
        "get_pending_replacement_orders_5765",
        f"Replacement orders for credit card account {credit_card_account_id}:",
        query(state, "credit_card_orders", "credit_card_account_id", credit_card_account_id),
        "\nNo pending replacement orders found for this credit card account.",
    )


@agent_tool(Effect.WRITE)
def log_credit_card_closure_reason_4521(
    state: BankDB, credit_card_account_id: str, user_id: str, closure_reason: str
) -> str:
    if not credit_card_account_id or not user_id or not closure_reason:
        return "Error: Missing required parameters."
    if closure_reason not in CLOSURE_REASONS:
        return f"Error: Invalid closure_reason. Must be one of: {CLOSURE_REASONS}"
    record_id = f"clsr_{det_id(f'closure_reason:{credit_card_account_id}:{user_id}', 12)}"
    record = {
        "record_id": record_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "closure_reason": closure_reason,
        "logged_at": TODAY,
        "status": "LOGGED",
    }
    put(state.credit_card_closure_reasons, record_id, record)  # a repeat is silently ignored (R)
    shown = json_block(
        {
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "closure_reason": closure_reason,
        }
    )
    return (
        "Closure reason logged successfully.\n\n"
        "Executed: log_credit_card_closure_reason_4521\n"
        f"Arguments: {shown}\n"
        f"Closure reason '{closure_reason}' logged for account {credit_card_account_id}."
    )


@agent_tool(Effect.READ)
def get_closure_reason_history_8293(state: BankDB, credit_card_account_id: str) -> str:
    if not credit_card_account_id:
        return "Error: Missing required parameter: credit_card_account_id"
    return _history(
        "Closure reason history retrieved successfully.",
        "get_closure_reason_history_8293",
        f"Closure reason history for credit card account {credit_card_account_id}:",
        query(state, "credit_card_closure_reasons", "credit_card_account_id", credit_card_account_id),
        "\nNo closure reason records found for this credit card account.",
    )


@agent_tool(Effect.WRITE)
def apply_statement_credit_8472(
    state: BankDB, user_id: str, credit_card_account_id: str, amount: float, reason: str
) -> str:
    if not user_id or not credit_card_account_id or amount is None or not reason:
        return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
    if amount <= 0:  # taken as given: text or a list fails the comparison (R)
        return "Error: Credit amount must be positive."
    if reason not in STATEMENT_CREDIT_REASONS:
        return f"Error: Invalid reason. Must be one of: {STATEMENT_CREDIT_REASONS}"
    if _card_account_missing(state, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    identifier = transaction_id(user_id, "STATEMENT_CREDIT", reason, amount, "Statement Credit")
    record = {
        "transaction_id": identifier,
        "user_id": user_id,
        "credit_card_account_id": credit_card_account_id,
        "credit_card_type": "N/A",
        "merchant_name": "Rho-Bank Statement Credit",
        "transaction_amount": f"-${amount:.2f}",
        "transaction_date": TODAY,
        "category": "Statement Credit",
        "status": "COMPLETED",
        "rewards_earned": "0 points",
        "credit_reason": reason,
    }
    if not put(state.credit_card_transaction_history, identifier, record):
        return f"Error: Failed to apply statement credit. Transaction ID '{identifier}' may already exist."
    return (
        "Statement credit applied successfully.\n\n"
        "Executed: apply_statement_credit_8472\n"
        f"  - Transaction ID: {identifier}\n"
        f"  - User ID: {user_id}\n"
        f"  - Account: {credit_card_account_id}\n"
        f"  - Credit Amount: ${amount:.2f}\n"
        f"  - Reason: {title(reason)}\n"
        f"  - Date: {TODAY}"
    )


@agent_tool(Effect.WRITE)
def apply_credit_card_account_flag_6147(
    state: BankDB,
    credit_card_account_id: str,
    user_id: str,
    flag_type: str,
    expiration_date: str,
    reason: str,
) -> str:
    if not credit_card_account_id or not user_id or not flag_type or not expiration_date or not reason:
        return (
            "Error: Missing required parameters (credit_card_account_id, user_id, flag_type, "
            "expiration_date, reason)."
        )
    if flag_type not in FLAG_TYPES:
        return f"Error: Invalid flag_type. Must be one of: {FLAG_TYPES}"
    if reason not in FLAG_REASONS:
        return f"Error: Invalid reason. Must be one of: {FLAG_REASONS}"
    if _card_account_missing(state, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    flag_id = f"ccflag_{det_id(f'account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}', 12)}"
    record = {
        "flag_id": flag_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "flag_type": flag_type,
        "effective_date": TODAY,
        "expiration_date": expiration_date,
        "reason": reason,
        "applied_at": TODAY,
        "status": "ACTIVE",
    }
    if not put(state.credit_card_account_flags, flag_id, record):
        return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
    return (
        "Account flag applied successfully!\n"
        f"  - Flag ID: {flag_id}\n"
        f"  - Account: {credit_card_account_id}\n"
        f"  - User ID: {user_id}\n"
        f"  - Flag Type: {title(flag_type)}\n"
        f"  - Effective Date: {TODAY}\n"
        f"  - Expiration Date: {expiration_date}\n"
        f"  - Reason: {title(reason)}"
    )


@agent_tool(Effect.WRITE)
def close_credit_card_account_7834(state: BankDB, credit_card_account_id: str, user_id: str) -> str:
    if not credit_card_account_id or not user_id:
        return "Error: Missing required parameters (credit_card_account_id, user_id)."
    if _card_account_missing(state, credit_card_account_id):
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    if credit_card_account_id not in state.credit_card_accounts.data:
        return f"Error: Failed to close credit card account '{credit_card_account_id}'."
    update(
        state.credit_card_accounts,
        credit_card_account_id,
        status="CLOSED",
        closed_date=TODAY,
        closed_by=user_id,
    )
    shown = json_block({"credit_card_account_id": credit_card_account_id, "user_id": user_id})
    return (
        "Credit card account closed successfully.\n\n"
        "Executed: close_credit_card_account_7834\n"
        f"Arguments: {shown}\n"
        f"Account {credit_card_account_id} has been closed."
    )


@agent_tool(Effect.WRITE)
def pay_credit_card_from_checking_9182(
    state: BankDB, user_id: str, checking_account_id: str, credit_card_account_id: str, amount: float
) -> str:
    if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
        return (
            "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, "
            "amount)."
        )
    try:
        amount = float(amount)
        if amount <= 0:
            return "Error: Payment amount must be a positive number."
    except (ValueError, TypeError):
        return "Error: Invalid payment amount. Must be a positive number."
    checking = state.accounts.data.get(checking_account_id)
    if checking is None:
        return f"Error: Checking account '{checking_account_id}' not found."
    if checking.get("user_id") != user_id:
        return f"Error: Checking account '{checking_account_id}' does not belong to user '{user_id}'."
    if checking.get("class") != "checking":
        return f"Error: Account '{checking_account_id}' is not a checking account."
    balance = account_balance(checking)
    if amount > balance:
        return (
            f"Error: Insufficient funds in checking account. Available balance: ${balance:.2f}, "
            f"requested payment: ${amount:.2f}."
        )
    card = state.credit_card_accounts.data.get(credit_card_account_id)
    if card is None:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    if card.get("user_id") != user_id:
        return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
    card_balance = _amount(card.get("current_balance", "$0.00"))
    if amount > card_balance:
        return (
            f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${card_balance:.2f}). "
            "Please specify an amount up to the outstanding balance."
        )
    new_checking, new_card = balance - amount, card_balance - amount
    update(state.accounts, checking_account_id, current_holdings=f"{new_checking:.2f}")
    update(state.credit_card_accounts, credit_card_account_id, current_balance=f"${new_card:.2f}")
    return (
        "Payment processed successfully!\n"
        f"  - Payment Amount: ${amount:.2f}\n"
        f"  - From Checking Account: {checking_account_id}\n"
        f"  - To Credit Card Account: {credit_card_account_id}\n"
        f"  - New Checking Balance: ${new_checking:.2f}\n"
        f"  - New Credit Card Balance: ${new_card:.2f}\n"
        "The payment has been applied immediately."
    )


def _amount(value: Any) -> float:
    """A dollar amount written as text (`$1,200.00`), 0 when it cannot be read."""
    try:
        return float(str(value).replace("$", "").replace(",", ""))
    except (ValueError, TypeError):
        return 0.0


@agent_tool(Effect.WRITE)
def submit_credit_limit_increase_request_7392(
    state: BankDB, credit_card_account_id: str, user_id: str, requested_increase_amount: int
) -> str:
    if not credit_card_account_id or not user_id or requested_increase_amount is None:
        return "Error: Missing required parameters."
    try:
        requested = float(requested_increase_amount)
    except (TypeError, ValueError):
        return "Error: Invalid requested_increase_amount. Must be a whole number."
    if not requested.is_integer():
        return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
    whole = int(requested)
    if whole <= 0:
        return "Error: Requested increase amount must be positive."
    card = state.credit_card_accounts.data.get(credit_card_account_id)
    if card is None:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    if card.get("user_id") != user_id:
        return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
    request_id = _cli_request_id(credit_card_account_id, user_id, whole)
    record = {
        "request_id": request_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "requested_increase_amount": whole,
        "submitted_at": TODAY,
        "status": "PENDING",
    }
    if not put(state.credit_limit_increase_requests, request_id, record):
        return "Error: A similar request may already exist."
    return (
        "Credit limit increase request submitted successfully.\n\n"
        "Executed: submit_credit_limit_increase_request_7392\n"
        f"  - Request ID: {request_id}\n"
        f"  - Account: {credit_card_account_id}\n"
        f"  - Requested Increase: ${whole:,}\n"
        "  - Status: PENDING"
    )


@agent_tool(Effect.READ)
def get_credit_limit_increase_history_4829(state: BankDB, credit_card_account_id: str) -> str:
    if not credit_card_account_id:
        return "Error: Missing required parameter: credit_card_account_id"
    return _history(
        "Credit limit increase history retrieved.",
        "get_credit_limit_increase_history_4829",
        f"Credit limit increase history for account {credit_card_account_id}:",
        query(state, "credit_limit_increase_requests", "credit_card_account_id", credit_card_account_id),
        "\nNo credit limit increase requests found for this account.",
    )


@agent_tool(Effect.READ)
def get_payment_history_6183(state: BankDB, credit_card_account_id: str, months: int) -> str:
    if not credit_card_account_id or months is None:
        return "Error: Missing required parameters (credit_card_account_id, months)."
    try:
        months = int(months)
        if months <= 0:
            return "Error: months must be a positive integer."
    except (ValueError, TypeError):
        return "Error: Invalid months value. Must be a positive integer."
    payments = [
        payment
        for payment in state.payment_history.data.values()
        if payment.get("credit_card_account_id") == credit_card_account_id
    ]
    if not payments:
        return f"No payment history found for account '{credit_card_account_id}'."
    payments.sort(key=lambda payment: payment.get("payment_date") or "", reverse=True)
    payments = payments[:months]
    on_time = 0
    for payment in payments:
        if payment.get("status") != "ON_TIME":
            break
        on_time += 1
    parts = [
        f"Payment history for account '{credit_card_account_id}' (last {months} months):",
        f"Consecutive on-time payments: {on_time}",
    ]
    parts.extend(
        f"\n  - Payment Date: {payment.get('payment_date')}\n"
        f"    Amount: {payment.get('amount')}\n"
        f"    Status: {payment.get('status')}"
        for payment in payments
    )
    return "\n".join(parts)


def _pending_dispute(state: BankDB, user_id: str) -> bool:
    return any(
        dispute.get("user_id") == user_id
        and dispute.get("status") in ("SUBMITTED", "UNDER_REVIEW", "PENDING")
        for dispute in state.transaction_disputes.data.values()
    )


def _pending_replacement(state: BankDB, account_id: str) -> bool:
    return any(
        order.get("credit_card_account_id") == account_id
        and order.get("status") in ("PENDING", "PROCESSING", "SHIPPED")
        for order in state.credit_card_orders.data.values()
    )


@agent_tool(Effect.WRITE)
def approve_credit_limit_increase_5847(
    state: BankDB, credit_card_account_id: str, user_id: str, new_credit_limit: int
) -> str:
    if not credit_card_account_id or not user_id or new_credit_limit is None:
        return "Error: Missing required parameters."
    card = state.credit_card_accounts.data.get(credit_card_account_id)
    if card is None:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    if card.get("user_id") != user_id:
        return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
    standing = card.get("account_status", "").upper()
    if (
        _pending_dispute(state, user_id)
        or _pending_replacement(state, credit_card_account_id)
        or standing in ("PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED")
    ):
        return "Error: Credit limit increase request cannot be approved at this time."
    current = _amount(card.get("credit_limit", "$0.00"))
    new_limit = float(new_credit_limit)  # unguarded, as τ²-bench's: text that is no number fails the call (R)
    update(state.credit_card_accounts, credit_card_account_id, credit_limit=f"${new_limit:.2f}")
    increase = new_limit - current
    request_id = _cli_request_id(credit_card_account_id, user_id, increase)
    record = {
        "request_id": request_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "previous_limit": f"${current:.2f}",
        "new_limit": f"${new_limit:.2f}",
        "increase_amount": f"${increase:.2f}",
        "decision_date": TODAY,
        "status": "APPROVED",
    }
    put(state.credit_limit_increase_requests, request_id, record)  # may meet a pending request's id (R)
    return (
        "Credit limit increase approved!\n"
        f"  - Account: {credit_card_account_id}\n"
        f"  - Previous Limit: ${current:.2f}\n"
        f"  - New Limit: ${new_limit:.2f}\n"
        f"  - Increase: ${increase:.2f}\n"
        f"  - Effective Date: {TODAY}\n"
        "The customer will receive a confirmation email."
    )


@agent_tool(Effect.WRITE)
def deny_credit_limit_increase_5848(
    state: BankDB, credit_card_account_id: str, user_id: str, denial_reason: str
) -> str:
    if not credit_card_account_id or not user_id or not denial_reason:
        return "Error: Missing required parameters."
    if denial_reason not in DENIAL_REASONS:
        return f"Error: Invalid denial_reason. Must be one of: {', '.join(DENIAL_REASONS)}"
    if credit_card_account_id not in state.credit_card_accounts.data:
        return f"Error: Credit card account '{credit_card_account_id}' not found."
    request_id = _cli_request_id(credit_card_account_id, user_id, 0.0)
    record = {
        "request_id": request_id,
        "credit_card_account_id": credit_card_account_id,
        "user_id": user_id,
        "denial_reason": denial_reason,
        "decision_date": TODAY,
        "status": "DENIED",
    }
    put(state.credit_limit_increase_requests, request_id, record)
    return (
        "Credit limit increase request denied.\n"
        f"  - Account: {credit_card_account_id}\n"
        f"  - Denial Reason: {denial_reason}\n"
        f"  - Date: {TODAY}\n"
        "The customer will receive a notification explaining the denial."
    )
