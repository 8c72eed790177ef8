"""Shared pieces of the bank's tools: the frozen clock, deterministic ids, record listings in τ²-bench's
"query format", its constraint queries, and balance parsing.

The listings print values with Python's `str` (`True`, `None`, `1.0`, `{'a': 1}`), as τ²-bench does.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from tau2 import ErrorCode, ToolError

from .state import BankDB, Record, Table

TODAY = "11/14/2025"
"""The bank's frozen date, as every record writes it (MM/DD/YYYY)."""
NOW = datetime(2025, 11, 14, 3, 40, 0)
"""The bank's frozen clock (date arithmetic uses it, time of day included)."""
CURRENT_TIME = "The current time is 2025-11-14 03:40:00 EST."


def det_id(seed: str, length: int = 16) -> str:
    """The first `length` hex digits of the SHA-256 of `seed`: τ²-bench's deterministic ids."""
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


def listing(table_name: str, rows: Iterable[tuple[str, Record]]) -> str:
    """Records in the query format: a count line, then each record's id and fields, one per line."""
    rows = list(rows)
    if not rows:
        return f"No records found in '{table_name}'."
    lines = [f"Found {len(rows)} record(s) in '{table_name}':\n"]
    for number, (record_id, record) in enumerate(rows, 1):
        lines.append(f"{number}. Record ID: {record_id}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def found(text: str) -> bool:
    """Whether a listing found records (τ²-bench's tools test the listing's text, not the rows)."""
    return "No records found" not in text and "No results found" not in text


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "gte": operator.ge,
    "lt": operator.lt,
    "lte": operator.le,
    "contains": lambda actual, expected: expected in actual if actual is not None else False,
    "startswith": lambda actual, expected: (
        str(actual).startswith(str(expected)) if actual is not None else False
    ),
    "endswith": lambda actual, expected: str(actual).endswith(str(expected)) if actual is not None else False,
    "in": lambda actual, expected: actual in expected,
    "nin": lambda actual, expected: actual not in expected,
}


def query(state: BankDB, table_name: str, field: str, value: str) -> str:
    """The records of a table whose `field` equals `value`, as a listing.

    The constraint is spelled as JSON text with the value pasted in, as τ²-bench builds it, so a quote or
    backslash in the value makes an `Error: Invalid JSON` (and a crafted value can add constraints) (R).
    """
    return query_text(state, table_name, f'{{"{field}": "{value}"}}')


def query_text(state: BankDB, table_name: str, constraints: str) -> str:
    """The records matching JSON `constraints` (`field` or `field__op` keys), as a listing."""
    table = state.table(table_name)
    if table is None:
        return f"Error: Database '{table_name}' not found."
    try:
        parsed = json.loads(constraints) if constraints else {}
    except json.JSONDecodeError as error:
        return f"Error: Invalid JSON: {error}"
    except ValueError as error:  # an integer too long to convert: τ²-bench's call fails with its text
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None
    if not isinstance(parsed, dict):
        return f"Error querying database: argument after ** must be a mapping, not {type(parsed).__name__}"
    return listing(table_name, matching(table, parsed))


def matching(table: Table, constraints: dict[str, Any]) -> list[tuple[str, Record]]:
    """(id, record) of every record meeting every constraint, in table order."""
    parsed = [_constraint(key, value) for key, value in constraints.items()]
    return [(record_id, record) for record_id, record in table.data.items() if _meets(record, parsed)]


def _constraint(key: str, value: Any) -> tuple[str, Callable[[Any, Any], Any], Any]:
    field, separator, name = key.rpartition("__")
    if not separator:
        return key, operator.eq, value
    return field, _OPERATORS.get(name, operator.eq), value


def _meets(record: Record, constraints: list[tuple[str, Callable[[Any, Any], Any], Any]]) -> bool:
    for field, compare, expected in constraints:
        try:
            if not compare(record.get(field), expected):
                return False
        except (TypeError, ValueError):
            return False
    return True


def rows_where(table: Table, field: str, value: Any) -> list[tuple[str, Record]]:
    """(id, record) of the records whose `field` equals `value`, in table order."""
    return [(record_id, record) for record_id, record in table.data.items() if record.get(field) == value]


def parse_balance(value: Any) -> float:
    """A balance as a number: numbers as they are, text without `$` and `,`, anything else 0."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: Record) -> float:
    """An account's balance, from `current_holdings` or else `balance`."""
    return parse_balance(account.get("current_holdings", account.get("balance", 0)))


def put(table: Table, record_id: str, record: Record) -> bool:
    """Add a record under a new id; False (and nothing added) when the id is taken."""
    if record_id in table.data:
        return False
    table.data[record_id] = record
    return True


def update(table: Table, record_id: str, **changes: Any) -> Record:
    """Store a copy of a record with `changes` applied (records are shared, never changed in place)."""
    record = {**table.data[record_id], **changes}
    table.data[record_id] = record
    return record


def title(text: str) -> str:
    """`snake_case` as Title Case words, as τ²-bench displays enum values."""
    return text.replace("_", " ").title()


def json_block(arguments: dict[str, Any]) -> str:
    """Arguments as τ²-bench prints them in results: indented JSON."""
    return json.dumps(arguments, indent=2)
