"""Loading the bank from a data directory laid out as τ²-bench's banking data (`db.json`, `documents/`,
`prompts/`, `tasks/`); ours in `data/` follows the same layout."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tau_common.files import read_db
from .state import BankDB, merge_patch

if TYPE_CHECKING:
    from tau2 import Task

DATA_DIR = Path(__file__).parent / "data"
DEFAULT_TASKS = DATA_DIR / "tasks"


def load_state(data_dir: Path | None) -> BankDB:
    """The bank's database of a data directory, or of our own data when None."""
    return read_db(DATA_DIR if data_dir is None else Path(data_dir), BankDB)


def patch_state(
    state: BankDB, agent_data: Mapping[str, Any] | None, user_data: Mapping[str, Any] | None
) -> BankDB:
    """A task's data patches merged into the one database both seats share (agent side first)."""
    for patch in (agent_data, user_data):
        if patch:
            state = merge_patch(state, patch)
    return state


def prepare_task(state: BankDB, task: Task) -> None:
    """Log the calls of the read tools the task's reference calls, and only those (τ²-bench's allowlist):
    a required read still shows in the database, an extra cautious read does not."""
    names = {
        step.arguments.get("agent_tool_name")
        for step in task.evaluation.solution
        if step.name == "call_discoverable_agent_tool"
    }
    state.set_read_log_allowlist(frozenset(name for name in names if isinstance(name, str)))
