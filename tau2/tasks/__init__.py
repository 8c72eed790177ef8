"""Tasks and suites: the task model, subtask catalogs, task files (ours and τ²-bench's), setting up a
task's world, running its assertions, and verifying that its reference solution passes."""

from tau2.tasks._assertions import all_passed, first_failure, run_assertions
from tau2.tasks._catalog import (
    Catalog,
    CatalogSource,
    Fact,
    Group,
    Intent,
    Precedence,
    Step,
    Subtask,
    Target,
    Texts,
)
from tau2.tasks._initialize import TaskSetupError, initialize_world
from tau2.tasks._reward_basis import IMPLIED_BASIS, RewardType
from tau2.tasks._solo import require_tickets
from tau2.tasks._suite import Suite, load_suite
from tau2.tasks._task import (
    AssertionCall,
    EnvCall,
    Evaluation,
    InitialData,
    SolutionStep,
    Task,
    UserInstructions,
    UserScenario,
)
from tau2.tasks._tau2bench import (
    BASIS_IMPLIED_KEY,
    METADATA_KEY,
    Tau2Task,
    ToolRequestor,
    default_reward_basis,
    load_split,
    load_task_file,
    task_from_tau2,
    task_to_tau2,
    write_tau2_file,
)

__all__ = [
    "BASIS_IMPLIED_KEY",
    "IMPLIED_BASIS",
    "METADATA_KEY",
    "AssertionCall",
    "Catalog",
    "CatalogSource",
    "EnvCall",
    "Evaluation",
    "Fact",
    "Group",
    "InitialData",
    "Intent",
    "Precedence",
    "RewardType",
    "SolutionStep",
    "Step",
    "Subtask",
    "Suite",
    "Target",
    "Task",
    "TaskSetupError",
    "Tau2Task",
    "Texts",
    "ToolRequestor",
    "UserInstructions",
    "UserScenario",
    "all_passed",
    "default_reward_basis",
    "first_failure",
    "initialize_world",
    "load_split",
    "load_suite",
    "load_task_file",
    "require_tickets",
    "run_assertions",
    "task_from_tau2",
    "task_to_tau2",
    "write_tau2_file",
]
