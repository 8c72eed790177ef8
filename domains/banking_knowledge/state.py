"""The bank's database: 23 tables of free-form records, as τ²-bench's banking domain stores them, plus the
two per-episode settings τ²-bench keeps beside the database (never hashed, never compared).

Records are shared between worlds and never changed in place: a write stores a new record in the world's
own table, so a fresh world is 23 shallow dict copies however large the database is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ..tau_common.merge import deep_merge

Record = dict[str, Any]

TABLES: tuple[str, ...] = (
    "users",
    "accounts",
    "debit_cards",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "agent_discoverable_tools",
    "task_config",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "debit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "credit_limit_increase_requests",
    "payment_history",
    "debit_card_disputes",
)
"""Every table, in τ²-bench's order (the order its query listings and dumps follow)."""


class Table(BaseModel):
    """Records by id and a free-text note on the table's fields (the note is data, part of the hash).
    Unknown keys are ignored, as τ²-bench's table model ignores them."""

    model_config = ConfigDict(extra="ignore")

    data: dict[str, Record] = Field(default_factory=dict)
    notes: str = ""


class BankDB(BaseModel):
    """The whole bank, shared by both seats (the customer's tools act on the same database).

    Two settings live beside the tables, outside the hash and outside equality, as in τ²-bench: the agent
    tools unlocked in this episode, and the read tools whose calls are logged (the task's allowlist).
    """

    model_config = ConfigDict(extra="forbid")

    users: Table = Field(default_factory=Table)
    accounts: Table = Field(default_factory=Table)
    debit_cards: Table = Field(default_factory=Table)
    referrals: Table = Field(default_factory=Table)
    credit_card_applications: Table = Field(default_factory=Table)
    user_discoverable_tools: Table = Field(default_factory=Table)
    user_discoverable_tool_calls: Table = Field(default_factory=Table)
    verification_history: Table = Field(default_factory=Table)
    credit_card_transaction_history: Table = Field(default_factory=Table)
    cash_back_disputes: Table = Field(default_factory=Table)
    bank_account_transaction_history: Table = Field(default_factory=Table)
    credit_card_accounts: Table = Field(default_factory=Table)
    agent_discoverable_tools: Table = Field(default_factory=Table)
    task_config: Table = Field(default_factory=Table)
    human_transfer_requests: Table = Field(default_factory=Table)
    transaction_disputes: Table = Field(default_factory=Table)
    credit_card_orders: Table = Field(default_factory=Table)
    debit_card_orders: Table = Field(default_factory=Table)
    credit_card_closure_reasons: Table = Field(default_factory=Table)
    credit_card_account_flags: Table = Field(default_factory=Table)
    credit_limit_increase_requests: Table = Field(default_factory=Table)
    payment_history: Table = Field(default_factory=Table)
    debit_card_disputes: Table = Field(default_factory=Table)

    _unlocked: set[str] = PrivateAttr(default_factory=set)
    _read_log_allowlist: frozenset[str] = PrivateAttr(default=frozenset())

    def table(self, name: str) -> Table | None:
        """The table called `name`, None for a name that is not a table."""
        return getattr(self, name, None) if name in TABLES else None

    @property
    def unlocked(self) -> set[str]:
        """Agent tools unlocked in this episode (held in memory only, as τ²-bench does)."""
        return self._unlocked

    @property
    def read_log_allowlist(self) -> frozenset[str]:
        """Read-only hidden agent tools whose calls are still logged: those the task's reference uses."""
        return self._read_log_allowlist

    def set_read_log_allowlist(self, names: frozenset[str]) -> None:
        """Fix the task's allowlist (done once, when the task's world is set up)."""
        self._read_log_allowlist = names

    def __eq__(self, other: object) -> bool:
        """Equal when every table is: the unlocked tools and the allowlist are not part of the database."""
        if not isinstance(other, BankDB):
            return NotImplemented
        return self.__dict__ == other.__dict__


def fresh_copy(state: BankDB) -> BankDB:
    """A new world sharing every (never mutated) record with `state`, with nothing unlocked."""
    tables: dict[str, Any] = {
        name: Table.model_construct(data=dict(table.data), notes=table.notes)
        for name, table in ((name, getattr(state, name)) for name in TABLES)
    }
    fresh = BankDB.model_construct(**tables)
    fresh.set_read_log_allowlist(state.read_log_allowlist)
    return fresh


def merge_patch(state: BankDB, patch: Mapping[str, Any]) -> BankDB:
    """`state` with a task's data patch merged in, as τ²-bench merges it: nested maps merge key by key,
    anything else replaces. Only the maps a patch reaches are copied, so the cost follows the patch, not
    the database (values are shared with the task: records are never changed in place). A patch that is
    not a database raises `ValueError`, naming the field."""
    result = fresh_copy(state)
    for name, table_patch in patch.items():
        table = result.table(name)
        if table is None:
            raise ValueError(f"{name}: not a table of the bank's database")
        if not isinstance(table_patch, Mapping):
            raise ValueError(f"{name}: a table patch must be an object")
        for key, value in table_patch.items():
            if key == "notes":
                if not isinstance(value, str):
                    raise ValueError(f"{name}.notes: must be a string")
                table.notes = value
            elif key == "data":
                if not isinstance(value, Mapping):
                    raise ValueError(f"{name}.data: must be an object of records by id")
                for record_id, record in value.items():
                    if not isinstance(record, Mapping):
                        raise ValueError(f"{name}.data.{record_id}: a record must be an object")
                    table.data[record_id] = deep_merge(table.data.get(record_id, {}), record)
            # other keys are ignored, as τ²-bench's table model ignores them
    return result
