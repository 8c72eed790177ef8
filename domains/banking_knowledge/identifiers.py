"""Where the bank's data holds identifiers, for renaming (`tau2 rebrand`, identifier perturbations). Tables
keep their records under `<table>.data`, keyed by the record's id."""

from __future__ import annotations

from pathlib import Path

from tau2.world import IdentifierKind, Identifiers

from .loader import DATA_DIR

IDENTIFIERS = Identifiers(
    kinds=(
        IdentifierKind(
            "user", "{hex:10}", fields=("user_id", "referrer_id", "parent_user_id"), keys=("users.data",)
        ),
        IdentifierKind(
            "account",
            "{prefix}{hex:10}",
            fields=(
                "account_id",
                "credit_card_account_id",
                "source_account_id",
                "destination_account_id",
                "checking_account_id",
                "parent_account_id",
            ),
            keys=("accounts.data", "credit_card_accounts.data"),
        ),
        IdentifierKind("card", "dbc_{hex:12}", fields=("card_id",), keys=("debit_cards.data",)),
        IdentifierKind(
            "transaction",
            "{prefix}{hex:12}",
            fields=("transaction_id",),
            keys=("credit_card_transaction_history.data", "bank_account_transaction_history.data"),
        ),
        IdentifierKind(
            "dispute",
            "dsp_{hex:12}",
            fields=("dispute_id",),
            keys=("transaction_disputes.data", "cash_back_disputes.data", "debit_card_disputes.data"),
        ),
        IdentifierKind("referral", "{hex:16}", fields=("referral_id",), keys=("referrals.data",)),
        IdentifierKind(
            "application", "{hex:16}", fields=("application_id",), keys=("credit_card_applications.data",)
        ),
        IdentifierKind(
            "order",
            "{prefix}{hex:12}",
            fields=("order_id",),
            keys=("credit_card_orders.data", "debit_card_orders.data"),
        ),
        IdentifierKind(
            "record",
            "{prefix}{hex:12}",
            fields=("record_id", "flag_id", "request_id"),
            keys=(
                "credit_card_closure_reasons.data",
                "credit_card_account_flags.data",
                "credit_limit_increase_requests.data",
            ),
        ),
        IdentifierKind("payment", "pay_{hex:12}", fields=("payment_id",), keys=("payment_history.data",)),
        IdentifierKind("email", "{lower:6}.{lower:6}{digits:3}@example.com", fields=("email", "new_email")),
        IdentifierKind("phone_number", "{digits:3}-555-{digits:4}", fields=("phone_number", "phone")),
    ),
    data_files=("db.json", "documents/*.json", "prompts/*.md", "prompts/components/*.md"),
    task_files=("tasks",),
    data_dir=DATA_DIR,
    delta=Path(__file__).parent / "rebrand.toml",
)
