"""The customer's always-visible tools, with τ²-bench's behaviour and result texts (every result is text;
refusals are text starting with `Error:` or `Failed`) (R)."""

from __future__ import annotations

from tau2 import Side, ToolKind, ToolSet

from . import discoverable
from .hidden_credit import transaction_id
from .records import TODAY, det_id, put, query_text
from .state import BankDB

USER_TOOLS = ToolSet(Side.USER)

CARD_TYPES = [
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
]
REWARD_RATES: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}
"""Reward percentage by card and purchase category (`default` for every other category)."""


@USER_TOOLS.tool(ToolKind.WRITE)
def apply_for_credit_card(
    state: BankDB,
    card_type: str,
    customer_name: str,
    annual_income: float,
    rho_bank_subscription: bool = False,
) -> str:
    """Apply for one of the bank's credit cards.

    Args:
        card_type: The card's full name, e.g. "Gold Rewards Card".
        customer_name: Your full legal name.
        annual_income: Your yearly income in US dollars.
        rho_bank_subscription: Whether you have a Rho-Bank+ subscription.
    """
    if card_type not in CARD_TYPES:
        return f"Error: Invalid card_type '{card_type}'. Must be one of: {CARD_TYPES}"
    income = float(annual_income)
    application_id = det_id(f"credit_card:{card_type}:{customer_name}:{income}:{rho_bank_subscription}")
    record = {
        "application_id": application_id,
        "card_type": card_type,
        "customer_name": customer_name,
        "annual_income": income,
        "rho_bank_subscription": rho_bank_subscription,
        "status": "PENDING",
        "date": TODAY,
    }
    if not put(state.credit_card_applications, application_id, record):
        return f"Failed to submit application: Record ID '{application_id}' may already exist."
    return (
        "Credit card application submitted:\n"
        "Your application has been successfully submitted. You will receive a decision within 5-7 business "
        "days "
        "via email."
    )


@USER_TOOLS.tool(ToolKind.WRITE)
def submit_referral(state: BankDB, user_id: str, account_type: str) -> str:
    """Refer someone to open an account with the bank.

    Args:
        user_id: Your user id (you are the referrer).
        account_type: The kind of account you refer them to.
    """
    referral_id = det_id(f"referral:{user_id}:{account_type}")
    record = {
        "referral_id": referral_id,
        "referrer_id": user_id,
        "referred_account_type": account_type,
        "referral_status": "NO_PROGRESS",
        "date": TODAY,
    }
    if not put(state.referrals, referral_id, record):
        return f"Failed to submit referral: Record ID '{referral_id}' may already exist."
    return (
        "Referral request submitted successfully!\n"
        f"  - Referral ID: {referral_id}\n"
        f"  - Referrer ID: {user_id}\n"
        f"  - Account Type: {account_type}\n"
        "  - Status: NO_PROGRESS\n"
        f"  - Date: {TODAY}\n\n"
        "Share your referral ID with the person you're referring. "
        "They will need to use this when applying for their account."
    )


@USER_TOOLS.tool(ToolKind.WRITE)
def call_discoverable_user_tool(state: BankDB, discoverable_tool_name: str, arguments: str = "{}") -> str:
    """Use a tool the agent handed you, with the arguments the agent gave.

    Args:
        discoverable_tool_name: The tool's name, as the agent gave it.
        arguments: The arguments as a JSON object in a string, e.g. '{"user_id": "abc123"}'.
    """
    return discoverable.call_user_tool(state, discoverable_tool_name, arguments)


@USER_TOOLS.tool(ToolKind.READ)
def list_discoverable_user_tools(state: BankDB) -> str:
    """The tools the agent has handed you so far."""
    return discoverable.list_user_tools(state)


@USER_TOOLS.tool(ToolKind.WRITE)
def request_human_agent_transfer(state: BankDB) -> str:
    """Ask to speak with a human agent; every request is recorded."""
    existing = query_text(state, "human_transfer_requests", "{}")
    number = 1 if "No records found" in existing else existing.count("request_id") + 1
    request_id = f"transfer_request_{number}"
    record = {"request_id": request_id, "request_number": number, "requested_at": TODAY, "status": "PENDING"}
    put(state.human_transfer_requests, request_id, record)
    return f"Transfer request #{number} submitted.\nThe agent will process your request."


@USER_TOOLS.tool(ToolKind.WRITE)
def submit_transaction(
    state: BankDB, user_id: str, credit_card_type: str, merchant_name: str, amount: float, category: str
) -> str:
    """Make a purchase with one of your credit cards.

    Args:
        user_id: Your user id.
        credit_card_type: The card used, e.g. "Gold Rewards Card".
        merchant_name: Where the purchase was made.
        amount: The amount in US dollars, e.g. 127.43.
        category: The purchase category, e.g. "Groceries", "Dining", "Travel", "Software".
    """
    rates = REWARD_RATES.get(credit_card_type)
    if rates is None:
        return f"Error: Unknown credit card type '{credit_card_type}'. Available types: {list(REWARD_RATES)}"
    value = float(amount)
    identifier = transaction_id(user_id, credit_card_type, merchant_name, value, category)
    rate = rates.get(category, rates["default"])
    points = int(value * rate)
    record = {
        "transaction_id": identifier,
        "user_id": user_id,
        "credit_card_type": credit_card_type,
        "merchant_name": merchant_name,
        "transaction_amount": f"${value:.2f}",
        "transaction_date": TODAY,
        "category": category,
        "status": "COMPLETED",
        "rewards_earned": f"{points} points",
    }
    if not put(state.credit_card_transaction_history, identifier, record):
        return f"Failed to submit transaction: Record ID '{identifier}' may already exist."
    return (
        "Transaction submitted successfully!\n"
        f"  - Transaction ID: {identifier}\n"
        f"  - User ID: {user_id}\n"
        f"  - Card Type: {credit_card_type}\n"
        f"  - Merchant: {merchant_name}\n"
        f"  - Amount: ${value:.2f}\n"
        f"  - Category: {category}\n"
        f"  - Date: {TODAY}\n"
        f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n"
    )
