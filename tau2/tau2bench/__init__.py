"""τ²-bench's formats, in one place. This package holds its task files (read, converted to and from our
`Task`, written, the splits beside them, the reward basis a file that names none implies) and
`load_task_file`, which tells them from our suites; it sits just above `tau2.tasks`, so loading tasks
needs nothing higher. `tau2.tau2bench.results` holds its results files (import, export, leaderboard
submissions) near the top of the layers, and is loaded only when imported."""

from tau2.tau2bench._task_files import (
    BASIS_IMPLIED_KEY,
    IMPLIED_BASIS,
    METADATA_KEY,
    Tau2Task,
    ToolRequestor,
    default_reward_basis,
    load_split,
    load_task_file,
    parse_task_id,
    task_folder_files,
    task_from_tau2,
    task_to_tau2,
    write_tau2_file,
)

__all__ = [
    "BASIS_IMPLIED_KEY",
    "IMPLIED_BASIS",
    "METADATA_KEY",
    "Tau2Task",
    "ToolRequestor",
    "default_reward_basis",
    "load_split",
    "load_task_file",
    "parse_task_id",
    "task_folder_files",
    "task_from_tau2",
    "task_to_tau2",
    "write_tau2_file",
]
