"""Loading airline data from a directory laid out as τ²-bench's (`db.json`, `policy.md`, task files,
`split_tasks.json`); ours in `data/` follows the same layout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..tau_common.files import read_db, read_policy
from .state import FlightDB

DATA_DIR = Path(__file__).parent / "data"
DEFAULT_TASKS = DATA_DIR / "tasks.json"


def load_state(data_dir: Path | None) -> FlightDB:
    """The airline database of a data directory, or of our own data when None."""
    return read_db(DATA_DIR if data_dir is None else Path(data_dir), FlightDB)


@cache
def policy(solo: bool, variant: str) -> str:
    """Our airline policy; the customer only talks, so there is no separate solo text."""
    return read_policy(DATA_DIR)
