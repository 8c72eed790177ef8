"""Where the retail data holds identifiers, for renaming (`tau2 rebrand`, identifier perturbations)."""

from __future__ import annotations

from pathlib import Path

from tau2.world import IdentifierKind, Identifiers

from .state import DATA_DIR

IDENTIFIERS = Identifiers(
    kinds=(
        IdentifierKind("user", "{lower:5}_{lower:6}_{digits:4}", fields=("user_id",), keys=("users",)),
        IdentifierKind("order", "#W{digits:8}", fields=("order_id", "users.*.orders"), keys=("orders",)),
        IdentifierKind("product", "{digits:10}", fields=("product_id",), keys=("products",)),
        IdentifierKind(
            "item",
            "{digits:11}",
            fields=(
                "item_id",
                "item_ids",
                "new_item_ids",
                "exchange_items",
                "exchange_new_items",
                "return_items",
            ),
            keys=("variants",),
        ),
        IdentifierKind(
            "payment_method",
            "{prefix}{digits:8}",
            fields=(
                "payment_method_id",
                "exchange_payment_method_id",
                "return_payment_method_id",
                "payment_methods.*.id",
            ),
            keys=("payment_methods",),
        ),
        IdentifierKind("tracking", "{digits:13}", fields=("tracking_id",)),
        IdentifierKind("email", "{lower:6}.{lower:6}{digits:4}@example.com", fields=("email",)),
    ),
    data_files=("db.json", "policy.md", "split_tasks.json"),
    data_dir=DATA_DIR,
    delta=Path(__file__).parent / "rebrand.toml",
)
