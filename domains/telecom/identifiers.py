"""Where the telecom data holds identifiers, for renaming (`tau2 rebrand`, identifier perturbations). The
first letter of a record's id tells its kind (`get_details_by_id`), so new ids keep it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tau2.world import IdentifierKind, Identifiers

from .loader import DATA_DIR

IDENTIFIERS = Identifiers(
    kinds=(
        IdentifierKind("customer", "{prefix}{digits:5}", fields=("customer_id",)),
        IdentifierKind("line", "{prefix}{digits:5}", fields=("line_id", "line_ids")),
        IdentifierKind(
            "bill", "{prefix}{digits:5}", fields=("bill_id", "bill_ids", "overdue_bill_id", "new_bill_id")
        ),
        IdentifierKind("device", "{prefix}{digits:5}", fields=("device_id",)),
        IdentifierKind("plan", "{prefix}{digits:5}", fields=("plan_id", "new_plan_id")),
        IdentifierKind("phone_number", "555-{digits:3}-{digits:4}", fields=("phone_number",)),
        IdentifierKind("imei", "{digits:15}", fields=("imei",)),
        IdentifierKind("email", "{lower:6}.{lower:6}{digits:3}@example.com", fields=("email",)),
    ),
    data_files=("db.toml", "db.json", "user_db.toml", "user_db.json"),
    task_files=("tasks*.json",),
    records=("crm",),
    data_dir=DATA_DIR,
    delta=Path(__file__).parent / "rebrand.toml",
)

EXTENDED_IDENTIFIERS = replace(
    IDENTIFIERS,
    kinds=tuple(
        replace(kind, keys=("account_services.autopay",)) if kind.name == "customer" else kind
        for kind in IDENTIFIERS.kinds
    ),
)
"""The extended domain's identifiers: telecom's, and the customers autopay is set up for (its keys)."""
