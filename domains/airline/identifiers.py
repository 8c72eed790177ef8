"""Where the airline data holds identifiers, for renaming (`tau2 rebrand`, identifier perturbations)."""

from __future__ import annotations

from pathlib import Path

from tau2.world import IdentifierKind, Identifiers

from .state import DATA_DIR

IDENTIFIERS = Identifiers(
    kinds=(
        IdentifierKind("user", "{lower:4}_{lower:6}_{digits:4}", fields=("user_id",), keys=("users",)),
        IdentifierKind(
            "reservation",
            "{alnum:6}",
            fields=("reservation_id", "users.*.reservations"),
            keys=("reservations",),
        ),
        IdentifierKind("flight", "HAT{digits:4}", fields=("flight_number",), keys=("flights",)),
        IdentifierKind(
            "payment_method",
            "{prefix}{digits:7}",
            fields=("payment_id", "payment_methods.*.id"),
            keys=("payment_methods",),
        ),
        IdentifierKind("email", "{lower:7}.{lower:5}{digits:3}@example.com", fields=("email",)),
    ),
    data_files=("db.json", "policy.md", "split_tasks.json"),
    data_dir=DATA_DIR,
    delta=Path(__file__).parent / "rebrand.toml",
)
