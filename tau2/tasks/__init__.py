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
from tau2.tasks._tau2bench import load_task_file, task_to_tau2, write_tau2_file
from tau2.tasks._verify import TaskVerification, verify_task

__all__ = [
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
    "SolutionStep",
    "Step",
    "Subtask",
    "Suite",
    "Target",
    "Task",
    "TaskSetupError",
    "TaskVerification",
    "Texts",
    "UserInstructions",
    "UserScenario",
    "all_passed",
    "first_failure",
    "initialize_world",
    "load_suite",
    "load_task_file",
    "run_assertions",
    "task_to_tau2",
    "verify_task",
    "write_tau2_file",
]
