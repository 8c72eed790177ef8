"""Hidden agent tools on debit cards: disputes under Regulation E, orders and activation, closing,
freezing, fraud alerts, PINs, recurring-payment blocks and temporary limit increases."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from .discoverable import Effect, agent_tool
from .hidden_credit import dispute_id
from .records import TODAY, det_id, found, put, query, title, update
from .state import BankDB, Record

DEBIT_DISPUTE_CATEGORIES = [
    "unauthorized_transaction",
    "atm_cash_discrepancy",
    "atm_deposit_not_credited",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "recurring_charge_after_cancellation",
    "card_present_fraud",
    "card_not_present_fraud",
]
TRANSACTION_TYPES = [
    "pin_purchase",
    "signature_purchase",
    "online_purchase",
    "atm_withdrawal",
    "atm_deposit",
    "recurring_payment",
    "person_to_person",
]
FRAUD_CATEGORIES = ("unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")
SEQUENTIAL_PINS = frozenset(
    {
        "0123",
        "1234",
        "2345",
        "3456",
        "4567",
        "5678",
        "6789",
        "9876",
        "8765",
        "7654",
        "6543",
        "5432",
        "4321",
        "3210",
    }
)
ACTIVATION_TOOL = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}
DEFAULT_ATM_LIMITS = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}
"""Daily ATM limits by checking product, for cards without a limit of their own."""


@agent_tool(Effect.WRITE)
def file_debit_card_transaction_dispute_6281(
    state: BankDB,
    transaction_id: str,
    account_id: str,
    card_id: str,
    user_id: str,
    dispute_category: str,
    transaction_date: str,
    discovery_date: str,
    disputed_amount: float,
    transaction_type: str,
    card_in_possession: bool,
    pin_compromised: str,
    contacted_merchant: bool,
    police_report_filed: bool,
    written_statement_provided: bool,
    provisional_credit_eligible: bool,
    customer_max_liability_amount: float,
    card_action: str,
) -> str:
    required = [
        transaction_id,
        account_id,
        card_id,
        user_id,
        dispute_category,
        transaction_date,
        discovery_date,
        disputed_amount,
        transaction_type,
        pin_compromised,
        card_action,
    ]
    if not all(required):
        return "Error: Missing required parameters."
    if customer_max_liability_amount is None:
        return "Error: customer_max_liability_amount is required."
    if None in (card_in_possession, contacted_merchant, police_report_filed, written_statement_provided):
        return (
            "Error: card_in_possession, contacted_merchant, police_report_filed, and "
            "written_statement_provided "
            "are required boolean fields."
        )
    if dispute_category not in DEBIT_DISPUTE_CATEGORIES:
        return f"Error: Invalid dispute_category. Must be one of: {DEBIT_DISPUTE_CATEGORIES}"
    if transaction_type not in TRANSACTION_TYPES:
        return f"Error: Invalid transaction_type. Must be one of: {TRANSACTION_TYPES}"
    pin_statuses = ["yes_shared", "yes_observed", "no", "unknown"]
    if pin_compromised not in pin_statuses:
        return f"Error: Invalid pin_compromised. Must be one of: {pin_statuses}"
    card_actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
    if card_action not in card_actions:
        return f"Error: Invalid card_action. Must be one of: {card_actions}"
    amount = disputed_amount  # taken as given: text or a list fails the comparison below (R)
    if amount <= 0:
        return "Error: disputed_amount must be a positive number."
    identifier = dispute_id(user_id, transaction_id)
    is_fraud = dispute_category in FRAUD_CATEGORIES
    shared_pin = pin_compromised == "yes_shared"
    record = {
        "dispute_id": identifier,
        "transaction_id": transaction_id,
        "account_id": account_id,
        "card_id": card_id,
        "user_id": user_id,
        "dispute_category": dispute_category,
        "transaction_date": transaction_date,
        "discovery_date": discovery_date,
        "disputed_amount": amount,
        "transaction_type": transaction_type,
        "card_in_possession": card_in_possession,
        "pin_compromised": pin_compromised,
        "contacted_merchant": contacted_merchant,
        "police_report_filed": police_report_filed,
        "written_statement_provided": written_statement_provided,
        "provisional_credit_eligible": provisional_credit_eligible,
        "provisional_credit_issued": provisional_credit_eligible,
        "provisional_credit_amount": amount if provisional_credit_eligible else None,
        "customer_max_liability_amount": customer_max_liability_amount,
        "card_action": card_action,
        "is_fraud_category": is_fraud,
        "pin_shared_voluntarily": shared_pin,
        "submitted_at": TODAY,
        "status": "OPEN",
    }
    if not put(state.debit_card_disputes, identifier, record):
        return "Error: Dispute may have already been filed for this transaction."
    parts = [
        f"Dispute ID: {identifier}",
        f"Transaction: {transaction_id}",
        f"Account: {account_id}",
        f"Category: {title(dispute_category)}",
        f"Disputed Amount: ${amount:.2f}",
        f"Card Action: {title(card_action)}",
    ]
    if provisional_credit_eligible:
        parts.append(
            f"Provisional Credit: ISSUED - ${amount:.2f} credited within 10 business days per Regulation E."
        )
    else:
        parts.append(
            "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details."
        )
    if shared_pin:
        parts.append(
            "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination."
        )
    if is_fraud and not police_report_filed and amount > 500:
        parts.append("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def set_debit_card_recurring_block_7382(state: BankDB, card_id: str, block_recurring: bool) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id"
    card = state.debit_cards.data.get(card_id)
    if not card:
        return f"Error: Debit card '{card_id}' not found."
    status = card.get("status", "").upper()
    if status != "ACTIVE":
        return (
            f"Error: Cannot update recurring block settings for a card with status '{status}'. Card must be "
            "ACTIVE."
        )
    update(state.debit_cards, card_id, recurring_blocked=block_recurring)
    if block_recurring:
        return (
            f"Recurring payments BLOCKED for debit card {card_id}.\n"
            "All recurring/subscription charges will be declined.\n"
            "One-time purchases are not affected.\n"
            "This change takes effect within 24 hours."
        )
    return (
        f"Recurring payments UNBLOCKED for debit card {card_id}.\n"
        "Recurring/subscription charges will now be allowed.\n"
        "This change takes effect within 24 hours."
    )


@agent_tool(Effect.READ)
def get_debit_dispute_status_7483(state: BankDB, user_id: str) -> str:
    if not user_id:
        return "Error: Missing required parameter: user_id"
    listing = query(state, "debit_card_disputes", "user_id", user_id)
    parts = [
        "Debit card dispute history retrieved successfully.",
        "",
        "Executed: get_debit_dispute_status_7483",
        f"Debit card dispute history for user {user_id}:",
        listing if found(listing) else "\nNo debit card disputes found for this user.",
    ]
    return "\n".join(parts)


def _fee(value: Any) -> float | None:
    """A fee as a number, None when absent; raises for text that is not a number."""
    return float(value) if value is not None else None


@agent_tool(Effect.WRITE)
def order_debit_card_5739(
    state: BankDB,
    account_id: str,
    user_id: str,
    delivery_option: str,
    delivery_fee: float,
    card_design: str,
    design_fee: float,
    shipping_address: str,
    excess_replacement_fee: float | None = None,
) -> str:
    try:
        delivery = _fee(delivery_fee)
    except (TypeError, ValueError):
        return "Error: delivery_fee must be a number."
    try:
        design = _fee(design_fee)
    except (TypeError, ValueError):
        return "Error: design_fee must be a number."
    try:
        excess = float(excess_replacement_fee or 0)
    except (TypeError, ValueError):
        excess = 0
    given = [
        account_id,
        user_id,
        delivery_option,
        delivery is not None,
        card_design,
        design is not None,
        shipping_address,
    ]
    if not all(given) or delivery is None or design is None:
        return (
            "Error: Missing required parameters. Required: account_id, user_id, delivery_option, "
            "delivery_fee, "
            "card_design, design_fee, shipping_address."
        )
    deliveries = ["STANDARD", "EXPEDITED", "RUSH"]
    if delivery_option.upper() not in deliveries:
        return f"Error: Invalid delivery_option. Must be one of: {deliveries}"
    delivery_option = delivery_option.upper()
    designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
    if card_design.upper() not in designs:
        return f"Error: Invalid card_design. Must be one of: {designs}"
    card_design = card_design.upper()
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("class") != "checking":
        return (
            f"Error: Debit cards can only be ordered for checking accounts. Account '{account_id}' is a "
            f"{account.get('class')} account."
        )
    if account.get("status") != "OPEN":
        return f"Error: Account must be OPEN. Account '{account_id}' has status: {account.get('status')}"
    if account.get("user_id") != user_id:
        return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
    try:
        holdings = float(
            str(account.get("current_holdings", "0")).replace(",", "")
        )  # a `$` is not stripped (R)
    except ValueError:
        holdings = 0.0
    if holdings < 25.0:
        return f"Error: Account must have a minimum balance of $25. Current balance: ${holdings:.2f}"
    for order in state.debit_card_orders.data.values():
        if order.get("account_id") == account_id and order.get("status") == "PENDING":
            return f"Error: There is already a pending debit card order for account '{account_id}'."
    if any(
        card.get("account_id") == account_id and card.get("status") == "ACTIVE"
        for card in state.debit_cards.data.values()
    ):
        return (
            f"Error: Account '{account_id}' already has an active debit card. Maximum 1 active card per "
            "checking account."
        )
    total = delivery + design + excess
    if total > 0 and holdings < total:
        return (
            f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current balance: ${holdings:.2f}"
        )
    expected = {
        "STANDARD": "7-10 business days",
        "EXPEDITED": "3-5 business days",
        "RUSH": "1-2 business days",
    }[delivery_option]
    order_id = f"dcord_{det_id(f'debit_card_order:{account_id}:{user_id}:{delivery_option}', 12)}"
    order = {
        "order_id": order_id,
        "account_id": account_id,
        "user_id": user_id,
        "delivery_option": delivery_option,
        "card_design": card_design,
        "shipping_address": shipping_address,
        "delivery_fee": delivery,
        "design_fee": design,
        "excess_replacement_fee": excess,
        "total_fee": total,
        "order_date": TODAY,
        "expected_delivery": expected,
        "status": "PENDING",
    }
    if not put(state.debit_card_orders, order_id, order):
        return "Error: Failed to create debit card order. Order may already exist."
    if total > 0:
        update(state.accounts, account_id, current_holdings=f"{holdings - total:.2f}")
        charged = []
        if delivery > 0:
            charged.append(f"Delivery ${delivery}")
        if design > 0:
            charged.append(f"Design ${design}")
        if excess > 0:
            charged.append(f"Excess Replacement ${excess:.0f}")
        fee_id = f"btxn_dcfee_{order_id[-8:]}"
        fee_record = {
            "transaction_id": fee_id,
            "account_id": account_id,
            "date": TODAY,
            "description": f"DEBIT CARD ORDER FEE - {', '.join(charged)}",
            "amount": -total,
            "type": "debit_card_fee",
            "status": "posted",
        }
        put(state.bank_account_transaction_history, fee_id, fee_record)
    card_id = f"dbc_{det_id(f'debit_card:{account_id}:{user_id}:{TODAY}', 12)}"
    user = state.users.data.get(user_id)
    holder = user.get("name", "CARDHOLDER").upper() if user is not None else "CARDHOLDER"
    card = {
        "card_id": card_id,
        "account_id": account_id,
        "user_id": user_id,
        "cardholder_name": holder,
        "last_4_digits": _digits(det_id(f"card_details:{card_id}:last4", 8), 4),
        "cvv": _digits(det_id(f"card_details:{card_id}:cvv", 6), 3),
        "status": "PENDING",
        "issue_date": TODAY,
        "expiration_date": _expiry(TODAY),
        "card_design": card_design,
        "issue_reason": _issue_reason(state, account_id),
    }
    put(state.debit_cards, card_id, card)
    parts = [
        "Debit Card Order Confirmed",
        f"Order ID: {order_id}",
        f"Card ID: {card_id}",
        f"Linked Account: {account_id}",
        f"Delivery Option: {delivery_option}",
        f"Card Design: {card_design}",
        f"Shipping Address: {shipping_address}",
        f"Expected Delivery: {expected}",
        "",
        "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the "
        "card.",
    ]
    if total > 0:
        details = []
        if delivery > 0:
            details.append(f"Delivery: ${delivery}")
        if design > 0:
            details.append(f"Design: ${design}")
        if excess > 0:
            details.append(f"Excess Replacement: ${excess:.0f}")
        parts.append(f"Total Fees: ${total:.2f} ({', '.join(details)}) - CHARGED to account {account_id}")
        parts.append(f"New Account Balance: ${holdings - total:.2f}")
    else:
        parts.append("Total Fees: $0 (No additional charges)")
    return "\n".join(parts)


def _digits(text: str, count: int) -> str:
    """The first `count` decimal digits of `text`, left-padded with zeros."""
    return "".join(char for char in text if char.isdigit())[:count].zfill(count)


def _expiry(issued: str) -> str:
    """The last day of the issue month four years on (February always the 28th)."""
    month, _, year = issued.split("/")
    day = "31" if month in ("01", "03", "05", "07", "08", "10", "12") else "28" if month == "02" else "30"
    return f"{month}/{day}/{int(year) + 4}"


def _issue_reason(state: BankDB, account_id: str) -> str:
    """Why a new card is issued: replacing a card closed as lost, stolen or fraud, else a first card."""
    existing = [card for card in state.debit_cards.data.values() if card.get("account_id") == account_id]
    closed = next((card for card in existing if card.get("status") == "CLOSED"), None)
    if closed is not None:
        reason = closed.get("closure_reason", "first_card")
        if reason in ("lost", "stolen", "fraud", "fraud_suspected"):
            return "fraud" if reason == "fraud_suspected" else str(reason)
        return "first_card"
    return "first_card" if existing else "new_account"


def _pin_problem(pin: Any) -> str | None:
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


def _activation_problem(
    state: BankDB, arguments: dict[str, Any], reasons: tuple[str, ...], tool: str
) -> tuple[str | None, Record | None]:
    """The refusal of an activation, or the card to activate."""
    card_id, last_4 = arguments["card_id"], arguments["last_4_digits"]
    cvv, pin = arguments["cvv"], arguments["pin"]
    if not all(arguments.values()):
        return (
            "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, "
            "pin.",
            None,
        )
    problem = _pin_problem(pin)
    if problem:
        return f"Error: {problem}", None
    if not cvv.isdigit() or len(cvv) != 3:
        return "Error: CVV must be exactly 3 digits.", None
    if not last_4.isdigit() or len(last_4) != 4:
        return "Error: Last 4 digits must be exactly 4 digits.", None
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found.", None
    reason = card.get("issue_reason", "new_account")
    if reason not in reasons:
        right = ACTIVATION_TOOL.get(reason, "unknown")
        return (
            f"Error: Wrong activation tool. This card has issue_reason='{reason}'. Please use {right} "
            "instead "
            f"of {tool}.",
            None,
        )
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active.", None
    if card.get("status") != "PENDING":
        return (
            f"Error: Debit card '{card_id}' cannot be activated. Current status: {card.get('status')}. Only "
            "PENDING cards can be activated.",
            None,
        )
    if card.get("last_4_digits") != last_4:
        return "Error: Card verification failed. The last 4 digits do not match our records.", None
    account_id = card.get("account_id")
    if (
        account_id
        and account_id in state.accounts.data
        and state.accounts.data[account_id].get("status") != "OPEN"
    ):
        return (
            f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be activated.",
            None,
        )
    return None, card


def _activate(
    state: BankDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str, *, variant: str
) -> tuple[str | None, Record, list[str]]:
    """Activate a card and retire the account's other active cards; the refusal, the card and the ids of
    the retired cards."""
    reasons = {
        "activate_debit_card_8291": ("new_account", "first_card"),
        "activate_debit_card_8292": ("lost", "stolen", "fraud"),
        "activate_debit_card_8293": ("expired", "damaged", "upgrade", "bank_reissue"),
    }[variant]
    arguments = {
        "card_id": card_id,
        "last_4_digits": last_4_digits,
        "expiration_date": expiration_date,
        "cvv": cvv,
        "pin": pin,
    }
    problem, card = _activation_problem(state, arguments, reasons, variant)
    if problem is not None or card is None:
        return problem, {}, []
    update(state.debit_cards, card_id, status="ACTIVE", activated_date=TODAY)
    reason = card.get("issue_reason", "lost" if variant.endswith("8292") else "expired")
    retired = []
    for other_id, other in list(state.debit_cards.data.items()):
        if (
            other_id == card_id
            or other.get("account_id") != card.get("account_id")
            or other.get("status") != "ACTIVE"
        ):
            continue
        if variant.endswith("8293"):
            changes = {
                "status": "GRACE_PERIOD",
                "grace_period_ends": TODAY,
                "deactivation_reason": f"Reissued card activated ({reason})",
            }
        else:
            why = (
                "New card activated" if variant.endswith("8291") else f"Replacement card activated ({reason})"
            )
            changes = {"status": "DEACTIVATED", "deactivated_date": TODAY, "deactivation_reason": why}
        update(state.debit_cards, other_id, **changes)
        retired.append(other_id)
    return None, card, retired


@agent_tool(Effect.WRITE)
def activate_debit_card_8291(
    state: BankDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    problem, _, retired = _activate(
        state, card_id, last_4_digits, expiration_date, cvv, pin, variant="activate_debit_card_8291"
    )
    if problem is not None:
        return problem
    parts = [
        "New Debit Card Activation Successful",
        f"Card ID: {card_id}",
        "Status: ACTIVE",
        f"Activation Date: {TODAY}",
        "",
        "Your card is now ready to use at any ATM or point of sale terminal.",
        "For security, please sign the back of your card.",
    ]
    if retired:
        parts.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(retired)}")
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def activate_debit_card_8292(
    state: BankDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    problem, card, retired = _activate(
        state, card_id, last_4_digits, expiration_date, cvv, pin, variant="activate_debit_card_8292"
    )
    if problem is not None:
        return problem
    reason = card.get("issue_reason", "lost")
    parts = [
        "Replacement Debit Card Activation Successful",
        f"Card ID: {card_id}",
        f"Replacement Reason: {title(reason)}",
        "Status: ACTIVE",
        f"Activation Date: {TODAY}",
        "",
        "Your replacement card is now ready to use.",
        "",
        "IMPORTANT SECURITY REMINDERS:",
        "- Please review your recent transactions for any unauthorized charges",
        "- Report any suspicious activity immediately",
    ]
    if reason == "fraud":
        parts.append("- Since fraud was suspected, we recommend changing your online banking password")
    if retired:
        parts.append(f"\nPrevious card(s) have been deactivated for security: {', '.join(retired)}")
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def activate_debit_card_8293(
    state: BankDB, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
) -> str:
    problem, card, retired = _activate(
        state, card_id, last_4_digits, expiration_date, cvv, pin, variant="activate_debit_card_8293"
    )
    if problem is not None:
        return problem
    reason = card.get("issue_reason", "expired")
    parts = [
        "Reissued Debit Card Activation Successful",
        f"Card ID: {card_id}",
        f"Reissue Reason: {title(reason)}",
        "Status: ACTIVE",
        f"Activation Date: {TODAY}",
        "",
        "Your reissued card is now ready to use.",
    ]
    if retired:
        parts.append(
            f"\nNote: Your previous card(s) ({', '.join(retired)}) will remain active for 24 hours as a "
            "grace period."
        )
        parts.append("After 24 hours, the old card(s) will be automatically deactivated.")
    if reason in ("expired", "bank_reissue"):
        parts.append(
            "\nReminder: If your card number changed, please update any recurring payments with your new "
            "card "
            "details."
        )
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def close_debit_card_4721(state: BankDB, card_id: str, reason: str) -> str:
    if not card_id or not reason:
        return "Error: Missing required parameters. Required: card_id, reason."
    reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
    if reason.lower() not in reasons:
        return f"Error: Invalid reason. Must be one of: {reasons}"
    reason = reason.lower()
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    previous = card.get("status")
    if previous not in ("ACTIVE", "PENDING"):
        return (
            f"Error: Debit card '{card_id}' cannot be closed. Current status: {previous}. Only ACTIVE or "
            "PENDING "
            "cards can be closed."
        )
    update(state.debit_cards, card_id, status="CLOSED", closed_date=TODAY, closure_reason=reason)
    parts = [
        "Debit Card Closed Successfully",
        f"Card ID: {card_id}",
        f"Previous Status: {previous}",
        "New Status: CLOSED",
        f"Closure Reason: {title(reason)}",
        f"Closure Date: {TODAY}",
        "",
    ]
    if reason in ("lost", "stolen", "fraud_suspected"):
        parts.append("IMPORTANT: This card has been immediately deactivated for security.")
        parts.append("Any pending transactions may still be processed.")
        if reason == "fraud_suspected":
            parts.append(
                "Please advise the customer to review recent transactions and file disputes for any "
                "unauthorized charges."
            )
            parts.append("Also recommend changing their online banking password.")
    parts.append("")
    parts.append(
        "Note: This card cannot be reactivated. If the customer needs a new card, they can order one "
        "through the "
        "standard ordering process."
    )
    parts.append(
        "Any recurring payments linked to this card will need to be updated with new payment information."
    )
    return "\n".join(parts)


@agent_tool(Effect.WRITE)
def freeze_debit_card_3892(state: BankDB, card_id: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") == "FROZEN":
        return f"Error: Debit card '{card_id}' is already frozen."
    if card.get("status") != "ACTIVE":
        return (
            f"Error: Debit card '{card_id}' cannot be frozen. Current status: {card.get('status')}. Only "
            "ACTIVE "
            "cards can be frozen."
        )
    update(state.debit_cards, card_id, status="FROZEN", frozen_date=TODAY)
    return "\n".join(
        [
            "Debit Card Frozen Successfully",
            f"Card ID: {card_id}",
            "Status: FROZEN",
            f"Frozen Date: {TODAY}",
            "",
            "While frozen:",
            "- All new purchase transactions will be declined",
            "- Recurring payments and subscriptions will be declined",
            "- Pending transactions already authorized may still process",
            "",
            "To unfreeze, the customer can call customer service or use the mobile app.",
            "If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
        ]
    )


@agent_tool(Effect.WRITE)
def unfreeze_debit_card_3893(state: BankDB, card_id: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active."
    if card.get("status") != "FROZEN":
        return (
            f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: {card.get('status')}. Only "
            "FROZEN cards can be unfrozen."
        )
    account_id = card.get("account_id")
    if (
        account_id
        and account_id in state.accounts.data
        and state.accounts.data[account_id].get("status") != "OPEN"
    ):
        return (
            f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be unfrozen."
        )
    update(state.debit_cards, card_id, status="ACTIVE", unfrozen_date=TODAY)
    return "\n".join(
        [
            "Debit Card Unfrozen Successfully",
            f"Card ID: {card_id}",
            "Status: ACTIVE",
            f"Unfrozen Date: {TODAY}",
            "",
            "The card is now active and ready to use immediately.",
            "All transactions will process normally.",
        ]
    )


@agent_tool(Effect.WRITE)
def clear_debit_card_fraud_alert_4892(state: BankDB, card_id: str, reason: str) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not reason:
        return "Error: Missing required parameter: reason."
    reasons = ["customer_verified", "velocity_clear"]
    if reason not in reasons:
        return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if reason == "velocity_clear":
        if not card.get("velocity_blocked", False):
            return f"Error: Debit card '{card_id}' does not have an active velocity block."
        update(state.debit_cards, card_id, velocity_blocked=False, velocity_cleared_date=TODAY)
        return "\n".join(
            [
                "Velocity Block Cleared Successfully",
                f"Card ID: {card_id}",
                f"Cleared Date: {TODAY}",
                "",
                "The card is now unblocked and ready for normal use.",
                "The velocity monitoring will continue - if the same unusual patterns recur,",
                "the card may be blocked again automatically.",
            ]
        )
    if not card.get("fraud_alert_active", False):
        return f"Error: Debit card '{card_id}' does not have an active fraud alert."
    if card.get("alert_source") == "bank_initiated":
        return (
            "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection "
            "system and "
            "cannot be cleared by customer service agents. Please transfer the customer to the security "
            "team using "
            "transfer_to_human_agents."
        )
    update(
        state.debit_cards,
        card_id,
        fraud_alert_active=False,
        alert_source=None,
        fraud_alert_cleared_date=TODAY,
    )
    return "\n".join(
        [
            "Fraud Alert Cleared Successfully",
            f"Card ID: {card_id}",
            f"Cleared Date: {TODAY}",
            "",
            "The fraud alert has been removed from the card.",
            "All transactions will process normally.",
            "",
            "Remind the customer to review recent transactions and report any unauthorized charges.",
        ]
    )


_PIN_EFFECTIVE = [
    "",
    "The new PIN is effective immediately.",
]
_PIN_CLOSING = [
    "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
    "",
    "Security reminder: Never share your PIN with anyone.",
]


@agent_tool(Effect.WRITE)
def reset_debit_card_pin_6284(state: BankDB, card_id: str, last_4_digits: str, new_pin: str) -> str:
    if not all([card_id, last_4_digits, new_pin]):
        return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
    if not last_4_digits.isdigit() or len(last_4_digits) != 4:
        return "Error: Last 4 digits must be exactly 4 digits."
    problem = _pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("last_4_digits") != last_4_digits:
        return "Error: Card verification failed. The last 4 digits do not match our records."
    if card.get("status") != "ACTIVE":
        return (
            f"Error: Cannot reset PIN. Card status is {card.get('status')}. Only ACTIVE cards can have "
            "their PIN reset."
        )
    update(state.debit_cards, card_id, pin_last_changed=TODAY, pin_locked=False, pin_attempts_remaining=3)
    return "\n".join(
        [
            "Debit Card PIN Reset Successfully",
            f"Card ID: {card_id}",
            f"PIN Changed: {TODAY}",
            *_PIN_EFFECTIVE,
            "Your card has been unlocked and is ready to use.",
            *_PIN_CLOSING,
        ]
    )


@agent_tool(Effect.WRITE)
def change_debit_card_pin_6285(state: BankDB, card_id: str, current_pin: str, new_pin: str) -> str:
    if not all([card_id, current_pin, new_pin]):
        return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
    if not current_pin.isdigit() or len(current_pin) != 4:
        return "Error: Current PIN must be exactly 4 digits."
    problem = _pin_problem(new_pin)
    if problem:
        return f"Error: {problem}"
    if current_pin == new_pin:
        return "Error: New PIN must be different from current PIN."
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") != "ACTIVE":
        return (
            f"Error: Cannot change PIN. Card status is {card.get('status')}. Only ACTIVE cards can have "
            "their PIN changed."
        )
    update(state.debit_cards, card_id, pin_last_changed=TODAY)
    return "\n".join(
        [
            "Debit Card PIN Changed Successfully",
            f"Card ID: {card_id}",
            f"PIN Changed: {TODAY}",
            *_PIN_EFFECTIVE,
            *_PIN_CLOSING,
        ]
    )


@agent_tool(Effect.READ)
def get_debit_cards_by_account_id_7823(state: BankDB, account_id: str) -> str:
    if not account_id:
        return "Error: Missing required parameter 'account_id'."
    account = state.accounts.data.get(account_id)
    if account is None:
        return f"Error: Account '{account_id}' not found."
    if account.get("class", "").lower() not in ("checking", "business_checking"):
        return (
            f"Error: Account '{account_id}' is not a checking account. Debit cards are only available for "
            "checking accounts."
        )
    cards = []
    for card_id, card in state.debit_cards.data.items():
        if card.get("account_id") != account_id:
            continue
        shown: dict[str, Any] = {"card_id": card_id}
        shown.update(card)
        if "last_4_digits" in shown and "card_number_last_4" not in shown:
            shown["card_number_last_4"] = shown.pop("last_4_digits")
        if "issue_date" in shown and "date_issued" not in shown:
            shown["date_issued"] = shown.pop("issue_date")
        elif "created_date" in shown and "date_issued" not in shown:
            shown["date_issued"] = shown.pop("created_date")
        cards.append(shown)
    if not cards:
        return f"No debit cards found for account '{account_id}'."
    cards.sort(key=lambda card: card.get("date_issued") or "", reverse=True)
    return json.dumps(cards, indent=2)


@agent_tool(Effect.WRITE)
def request_temporary_debit_card_limit_increase_8374(
    state: BankDB, card_id: str, limit_type: str, new_limit: int
) -> str:
    if not card_id:
        return "Error: Missing required parameter: card_id."
    if not limit_type:
        return "Error: Missing required parameter: limit_type."
    if limit_type not in ("atm", "purchase"):
        return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
    if new_limit is None:
        return "Error: Missing required parameter: new_limit."
    try:
        requested = float(new_limit)
    except (ValueError, TypeError):
        return f"Error: new_limit must be an integer, got '{new_limit}'."
    if not requested.is_integer():
        return f"Error: new_limit must be an integer, got '{requested}'."
    limit = int(requested)
    if limit <= 0:
        return "Error: new_limit must be a positive amount."
    card = state.debit_cards.data.get(card_id)
    if card is None:
        return f"Error: Debit card '{card_id}' not found."
    if card.get("status") != "ACTIVE":
        return (
            f"Error: Debit card '{card_id}' is not active. Current status: {card.get('status')}. Only "
            "ACTIVE cards "
            "can have limit increases."
        )
    account_id = card.get("account_id")
    if not account_id or account_id not in state.accounts.data:
        return f"Error: Could not find linked account for debit card '{card_id}'."
    account = state.accounts.data[account_id]
    if account.get("status") != "OPEN":
        return (
            f"Error: The linked account '{account_id}' is not in good standing. Account status: "
            f"{account.get('status')}."
        )
    opened = account.get("date_opened")
    if opened:
        try:
            age = (datetime.strptime(TODAY, "%m/%d/%Y") - datetime.strptime(opened, "%m/%d/%Y")).days
        except ValueError:
            age = None
        if age is not None and age < 60:
            return (
                "Error: Account must be at least 60 days old for a temporary limit increase. "
                f"Account age: {age} days."
            )
    if limit_type == "atm":
        current = card.get("daily_atm_limit")
        field, name = "daily_atm_limit", "Daily ATM Withdrawal Limit"
        if current is None:
            level = account.get("level", "").lower()
            if "light green" in level:
                return (
                    "Error: Light Green Account (teen checking) cards have policy-based limits that cannot "
                    "be "
                    "modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety "
                    "reasons. "
                    "The customer may request the parent/guardian to withdraw cash from their own account "
                    "if needed."
                )
            current = DEFAULT_ATM_LIMITS.get(level)
            if current is None:
                return (
                    "Error: Could not determine the default ATM limit for account type "
                    f"'{account.get('level')}'. "
                    "Please verify the account type."
                )
    else:
        current = card.get("daily_purchase_limit")
        field, name = "daily_purchase_limit", "Daily Purchase Limit"
    if current is None:
        return (
            f"Error: The card does not have a {name.lower()} configured. This may be a restricted account "
            "type "
            "where limits are set by account policy and cannot be modified."
        )
    ceiling = int(current * 1.5)
    if limit > ceiling:
        return (
            f"Error: Requested limit ${limit} exceeds the maximum allowed temporary increase. Maximum "
            "temporary "
            f"limit is ${ceiling} (150% of current ${current} limit)."
        )
    if limit <= current:
        return f"Error: Requested limit ${limit} is not higher than the current limit of ${current}."
    update(
        state.debit_cards,
        card_id,
        **{
            field: limit,
            f"temporary_{limit_type}_limit_increase": True,
            f"original_{limit_type}_limit": current,
            f"temporary_{limit_type}_limit_expires": TODAY,
        },
    )
    return "\n".join(
        [
            f"Temporary {name} Increase Granted Successfully",
            f"Card ID: {card_id}",
            f"Previous Limit: ${current}",
            f"New Temporary Limit: ${limit}",
            f"Increase Amount: ${limit - current}",
            "",
            "Important Information:",
            "- This temporary increase expires in 24 hours",
            f"- After expiration, the limit will revert to ${current}",
            "- Only one temporary increase is allowed per 24-hour period",
            "",
            "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
            "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
            "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
        ]
    )
