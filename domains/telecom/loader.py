"""Loading telecom data: a CRM database and a user (phone) database, in TOML or JSON (spec §1.4).

Both our files and τ²-bench's are accepted. Every failure is a `UserInputError` whose message is one line
naming the file and the field path, e.g. `…/db.toml: lines[3].status: Input should be 'Active', …`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tau2.domains.telecom.binding import clear_stored_coupling
from tau2.domains.telecom.crm import BillStatus, TelecomDB
from tau2.domains.telecom.invariants import invariant_violations
from tau2.domains.telecom.lookup import customer_bills, customer_for_number, find_bill, line_for_number
from tau2.domains.telecom.phone import DeviceState, Surroundings
from tau2.domains.telecom.state import TelecomState
from tau2.errors import UserInputError
from tau2.files import parse_json, parse_toml, read_text_bounded

DATA_DIR = Path(__file__).parent / "data"
"""Our own telecom data: db.toml and user_db.toml."""

_TOML_POSITION = re.compile(r"^(?P<reason>.*?)\s*\(at (?P<where>line \d+, column \d+|end of document)\)$")


class _UserDB(BaseModel):
    """The user database file: both tables optional, nothing else allowed."""

    model_config = ConfigDict(extra="forbid")

    device: DeviceState = Field(default_factory=DeviceState)
    surroundings: Surroundings = Field(default_factory=Surroundings)


def load_state(data_dir: Path | None) -> TelecomState:
    """The telecom state of a data directory (db + user_db, TOML or JSON), or of our own data when None."""
    directory = DATA_DIR if data_dir is None else Path(data_dir)
    return load_files(_pick(directory, "db"), _pick(directory, "user_db"))


def load_files(db_path: Path, user_db_path: Path) -> TelecomState:
    """The telecom state of one CRM database file and one user database file."""
    crm = parse_crm(read_data_file(db_path), str(db_path))
    tables = list(TelecomDB.model_fields)
    if not any(getattr(crm, table) for table in tables):  # no task could run on it
        raise UserInputError(f"{db_path}: the database is empty (no {', '.join(tables)})")
    device, surroundings = parse_user_db(read_data_file(user_db_path), str(user_db_path))
    state = TelecomState(crm=crm, device=device, surroundings=surroundings)
    settle(state, str(db_path), str(user_db_path))
    return state


def _pick(directory: Path, stem: str) -> Path:
    """The one `<stem>.toml` or `<stem>.json` in a directory."""
    found = [path for path in (directory / f"{stem}.toml", directory / f"{stem}.json") if path.is_file()]
    if len(found) != 1:
        problem = "has both" if found else "has neither"
        raise UserInputError(f"{directory}: {problem} {stem}.toml and {stem}.json")
    return found[0]


def read_data_file(path: Path) -> dict[str, Any]:
    """Parse a TOML or JSON file whose top level is a table; native dates become ISO strings."""
    try:
        text = read_text_bounded(path, text="TOML" if path.suffix == ".toml" else "JSON")
    except UnicodeDecodeError as error:
        raise UserInputError(f"{path}: cannot read: not UTF-8 text ({error.reason})") from None
    if path.suffix == ".toml":
        try:
            data: Any = parse_toml(text)
        except tomllib.TOMLDecodeError as error:
            match = _TOML_POSITION.match(str(error))
            detail = (
                f"{match['where']}: invalid TOML: {match['reason']}" if match else f"invalid TOML: {error}"
            )
            raise UserInputError(f"{path}: {detail}") from None
    elif path.suffix == ".json":
        try:
            data = parse_json(text)
        except json.JSONDecodeError as error:
            detail = f"line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}"
            raise UserInputError(f"{path}: {detail}") from None
    else:
        raise UserInputError(f"{path}: expected a .toml or .json file")
    if not isinstance(data, dict):
        raise UserInputError(f"{path}: the top level must be a table (object)")
    converted: dict[str, Any] = _iso_dates(data)
    return converted


def _iso_dates(value: Any) -> Any:
    """Replace native TOML dates, datetimes and times by ISO strings, recursively."""
    if isinstance(value, dict):
        return {key: _iso_dates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_iso_dates(item) for item in value]
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value


def parse_crm(data: Mapping[str, Any], source: str) -> TelecomDB:
    """Validate a CRM database (five optional tables: plans, customers, lines, bills, devices)."""
    try:
        return TelecomDB.model_validate(data)
    except ValidationError as error:
        raise UserInputError(f"{source}: {describe_validation_error(error)}") from None


def parse_user_db(data: Mapping[str, Any], source: str) -> tuple[DeviceState, Surroundings]:
    """Validate a user database (tables `device` and `surroundings`), mapping τ²-bench's SIM fields (Δ3)."""
    content = dict(data)
    device = content.get("device")
    if isinstance(device, dict):
        content["device"] = _map_tau2_sim(device, source)
    try:
        user_db = _UserDB.model_validate(content)
    except ValidationError as error:
        raise UserInputError(f"{source}: {describe_validation_error(error)}") from None
    return user_db.device, user_db.surroundings


def _map_tau2_sim(device: dict[str, Any], source: str) -> dict[str, Any]:
    """τ²-bench's `sim_card_missing` flag and `missing` status mean the card is not inserted."""
    mapped = dict(device)
    missing = mapped.pop("sim_card_missing", False)
    if not isinstance(missing, bool):
        raise UserInputError(
            f"{source}: device.sim_card_missing: Input should be a valid boolean (got {missing!r})"
        )
    if mapped.get("sim_card_status") == "missing":
        mapped["sim_card_status"] = "active"
        missing = True
    if missing:
        mapped["sim_card_inserted"] = False
    return mapped


def describe_validation_error(error: ValidationError) -> str:
    """`path: reason` of the first failure (plus how many more), paths written like `lines[3].status`."""
    details = error.errors(include_url=False)
    first = details[0]
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]).lstrip(".")
    reason = first["msg"]
    if first["type"] != "missing":
        reason += f" (got {_shorten(repr(first['input']))})"
    more = f" (and {len(details) - 1} more problems)" if len(details) > 1 else ""
    return f"{path or 'top level'}: {reason}{more}"


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def settle(state: TelecomState, crm_source: str, user_source: str) -> None:
    """Apply the coupling rules to freshly loaded data, then require every invariant to hold.

    If the phone is bound: a stored paid payment request marks its bill `Paid`; an unpaid one must name
    the customer's first `Awaiting Payment` bill; the stored coupled fields then give way to derived ones.
    """
    surroundings = state.surroundings
    number = surroundings.phone_number
    if number is not None:
        if line_for_number(state.crm, number) is None:
            raise UserInputError(
                f"{user_source}: surroundings.phone_number: no line has the number {number!r}"
            )
        request = surroundings.payment_request
        if request is not None and request.paid:
            bill = find_bill(state.crm, request.bill_id)
            if bill is None:
                raise UserInputError(
                    f"{user_source}: surroundings.payment_request.bill_id: no bill {request.bill_id!r}"
                )
            bill.status = BillStatus.PAID
        elif request is not None and request.bill_id != _first_awaiting_bill(state, number):
            raise UserInputError(
                f"{user_source}: surroundings.payment_request.bill_id: {request.bill_id!r} is not the "
                "customer's first Awaiting Payment bill"
            )
        clear_stored_coupling(surroundings)
    violations = invariant_violations(state)
    if violations:
        first = violations[0]
        source, path = (
            (crm_source, first.removeprefix("crm.")) if first.startswith("crm.") else (user_source, first)
        )
        raise UserInputError(f"{source}: {path}")


def _first_awaiting_bill(state: TelecomState, number: str) -> str | None:
    """ID of the first `Awaiting Payment` bill of the customer owning `number`."""
    customer = customer_for_number(state.crm, number)
    bills = customer_bills(state.crm, customer) if customer is not None else []
    return next((bill.bill_id for bill in bills if bill.status == BillStatus.AWAITING_PAYMENT), None)
