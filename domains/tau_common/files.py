"""τ²-bench's data directory layout for the single-control domains: `db.json` and `policy.md` (task files
and `split_tasks.json` are read by `tau2.tau2bench`). Every failure is one line naming the file
and the field."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from tau2 import UserInputError
from tau2.files import read_json, read_text_bounded, validation_error
from tau2.world import state_digest

M = TypeVar("M", bound=BaseModel)

DB_FILE = "db.json"
POLICY_FILE = "policy.md"


def read_db(directory: Path, model: type[M]) -> M:
    """The database `directory/db.json` validated as `model`; one whose every table is empty is refused
    (no task could run on it)."""
    path = directory / DB_FILE
    data = read_json(path)
    if not isinstance(data, dict):
        raise UserInputError(f"{path}: the top level must be a JSON object")
    try:
        db = model.model_validate(data)
    except ValidationError as error:
        raise validation_error(path, error) from None
    tables = list(type(db).model_fields)
    if not any(getattr(db, table) for table in tables):
        raise UserInputError(f"{path}: the database is empty (no {', '.join(tables)})")
    return db


def read_policy(directory: Path) -> str:
    """The agent policy text `directory/policy.md`; it must not be empty."""
    path = directory / POLICY_FILE
    try:
        text = read_text_bounded(path, text="policy")
    except UnicodeDecodeError as error:
        raise UserInputError(f"{path}: cannot read: not UTF-8 text ({error.reason})") from None
    if not text.strip():
        raise UserInputError(f"{path}: the policy is empty")
    return text


@cache
def shipped_policy(directory: Path) -> str | None:
    """The `policy.md` of a data directory (τ²-bench ships one beside every database), None without one;
    read once per directory."""
    return read_policy(directory) if (directory / POLICY_FILE).is_file() else None


def canonical_hash(state: BaseModel) -> str:
    """sha256 of the state as sorted-key JSON with every field, nulls included: the hash τ²-bench's
    conformance data gives for a database, so states can be compared bit for bit with the reference."""
    return state_digest(state)
