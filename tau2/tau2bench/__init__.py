"""τ²-bench's task files: read, converted to and from our `Task`, written, the splits beside them, the
reward basis a file that names none implies, and `load_task_file`, which tells them from our suites. It
sits just above `tau2.tasks`, so loading tasks needs nothing higher; τ²-bench's results files, which
replay and write runs, are the package `tau2.tau2bench_results` near the top of the layers."""

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
