"""Tasks and suites: the task model, subtask catalogs, task files (ours and τ²-bench's), setting up a
task's world, running its assertions, and verifying that its reference solution passes."""

from tau2.tasks._assertions import all_passed, first_failure, run_assertions
from tau2.tasks._catalog import (
    Catalog,
    CatalogSource,
    Fact,
    Group,
    Intent,
    LayeredCatalogSource,
    Precedence,
    Step,
    Subtask,
    Target,
    TextFragments,
    Texts,
)
from tau2.tasks._extension import (
    ENTRY_POINT_GROUP as CATALOG_EXTENSION_GROUP,
)
from tau2.tasks._extension import (
    CatalogExtension,
    ExtensionFile,
    ExtensionRecord,
    IntentExtension,
    installed_catalog_extensions,
    load_catalog_extension,
    resolve_catalog_extension,
)
from tau2.tasks._initialize import TaskSetupError, initialize_world
from tau2.tasks._layering import extend_catalog
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
    "CATALOG_EXTENSION_GROUP",
    "IMPLIED_BASIS",
    "METADATA_KEY",
    "AssertionCall",
    "Catalog",
    "CatalogExtension",
    "CatalogSource",
    "EnvCall",
    "Evaluation",
    "ExtensionFile",
    "ExtensionRecord",
    "Fact",
    "Group",
    "InitialData",
    "Intent",
    "IntentExtension",
    "LayeredCatalogSource",
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
    "TextFragments",
    "Texts",
    "ToolRequestor",
    "UserInstructions",
    "UserScenario",
    "all_passed",
    "default_reward_basis",
    "extend_catalog",
    "first_failure",
    "initialize_world",
    "installed_catalog_extensions",
    "load_catalog_extension",
    "load_split",
    "load_suite",
    "load_task_file",
    "require_tickets",
    "resolve_catalog_extension",
    "run_assertions",
    "task_from_tau2",
    "task_to_tau2",
    "write_tau2_file",
]
