"""τ²-bench's formats. This package holds its task files (read, converted to and from our `Task`, written,
and the splits beside them) and sits just above `tau2.tasks`, so loading a suite needs nothing more;
`tau2.tau2bench.results` holds its results files (import, export, leaderboard submissions), at the
interfaces' layer, and is loaded only when imported."""

from tau2.tau2bench._task_files import (
    BASIS_IMPLIED_KEY,
    METADATA_KEY,
    Tau2Task,
    ToolRequestor,
    default_reward_basis,
    load_split,
    load_task_file,
    parse_task_id,
    task_from_tau2,
    task_to_tau2,
    write_tau2_file,
)

__all__ = [
    "BASIS_IMPLIED_KEY",
    "METADATA_KEY",
    "Tau2Task",
    "ToolRequestor",
    "default_reward_basis",
    "load_split",
    "load_task_file",
    "parse_task_id",
    "task_from_tau2",
    "task_to_tau2",
    "write_tau2_file",
]
