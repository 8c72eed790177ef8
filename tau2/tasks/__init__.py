"""Tasks and suites: the task model (with the components its reward is composed from), subtask catalogs,
suites (our task-file format; τ²-bench's task files are `tau2.tau2bench`'s), setting up a task's world and
running its assertions."""

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
from tau2.tasks._parameters import TextTemplate, fill_text
from tau2.tasks._reward_basis import RewardType
from tau2.tasks._solo import require_tickets
from tau2.tasks._suite import SUITE_FORMAT, Suite, find_duplicate, is_suite_document, load_suite, parse_suite
from tau2.tasks._task import (
    AssertionCall,
    EnvCall,
    Evaluation,
    InitialData,
    SolutionStep,
    Task,
    TaskId,
    UserInstructions,
    UserScenario,
    check_task_id,
)
from tau2.tasks._variants import (
    TERSE_STYLE,
    VERBOSE_STYLE,
    BriefVariant,
    VariedBrief,
    brief_facts,
    sentences,
    vary_brief,
)

__all__ = [
    "CATALOG_EXTENSION_GROUP",
    "SUITE_FORMAT",
    "TERSE_STYLE",
    "VERBOSE_STYLE",
    "AssertionCall",
    "BriefVariant",
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
    "TaskId",
    "TaskSetupError",
    "TextFragments",
    "TextTemplate",
    "Texts",
    "UserInstructions",
    "UserScenario",
    "VariedBrief",
    "all_passed",
    "brief_facts",
    "check_task_id",
    "extend_catalog",
    "fill_text",
    "find_duplicate",
    "first_failure",
    "initialize_world",
    "installed_catalog_extensions",
    "is_suite_document",
    "load_catalog_extension",
    "load_suite",
    "parse_suite",
    "require_tickets",
    "resolve_catalog_extension",
    "run_assertions",
    "sentences",
    "vary_brief",
]
