"""tau2: a dual-control simulation framework for evaluating conversational customer-service agents.

The main API is re-exported here and loaded on first use, so `import tau2` (and the command line, which
installs its signal handlers first thing) starts at once; it loads neither litellm nor the CLI.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tau2.actors import actor_kinds, make_actor, register_actor
    from tau2.api import RunResult, arun, load_run_result, run
    from tau2.config import RunConfig
    from tau2.episode import (
        Actor,
        ActorSpec,
        ActorTurn,
        CheckRecord,
        Entry,
        EntryKind,
        EpisodeConfig,
        EpisodeResult,
        EvaluationResult,
        Mode,
        NLJudge,
        RejectedReply,
        SeatContext,
        TaskVerification,
        TerminationReason,
        ToolCall,
        Trajectory,
        check_actor,
        evaluate,
        run_episode,
        verify_task,
    )
    from tau2.errors import ErrorCode, ToolError, UnknownDomainError, UserInputError
    from tau2.experiments import ExperimentConfig, ExperimentResult, arun_experiment, run_experiment
    from tau2.llm import ContextOverflowError, InfrastructureError, Usage
    from tau2.perturbations import PerturbationKind, check_perturbation, register_perturbation
    from tau2.runs import SimulationRecord
    from tau2.tasks import (
        AssertionCall,
        Domain,
        EnvCall,
        Evaluation,
        InitialData,
        RewardType,
        SolutionStep,
        Suite,
        Task,
        TaskSetupError,
        UserInstructions,
        UserScenario,
        available_domains,
        get_domain,
        initialize_world,
        register_domain,
    )
    from tau2.tau2bench import load_task_file, write_tau2_file
    from tau2.world import (
        Side,
        Tool,
        ToolFailure,
        ToolKind,
        ToolResult,
        ToolSet,
        ToolTable,
        World,
        check_domain,
    )

__all__ = [
    "Actor",
    "ActorSpec",
    "ActorTurn",
    "AssertionCall",
    "CheckRecord",
    "ContextOverflowError",
    "Domain",
    "Entry",
    "EntryKind",
    "EnvCall",
    "EpisodeConfig",
    "EpisodeResult",
    "ErrorCode",
    "Evaluation",
    "EvaluationResult",
    "ExperimentConfig",
    "ExperimentResult",
    "InfrastructureError",
    "InitialData",
    "Mode",
    "NLJudge",
    "PerturbationKind",
    "RejectedReply",
    "RewardType",
    "RunConfig",
    "RunResult",
    "SeatContext",
    "Side",
    "SimulationRecord",
    "SolutionStep",
    "Suite",
    "Task",
    "TaskSetupError",
    "TaskVerification",
    "TerminationReason",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolFailure",
    "ToolKind",
    "ToolResult",
    "ToolSet",
    "ToolTable",
    "Trajectory",
    "UnknownDomainError",
    "Usage",
    "UserInputError",
    "UserInstructions",
    "UserScenario",
    "World",
    "actor_kinds",
    "arun",
    "arun_experiment",
    "available_domains",
    "check_actor",
    "check_domain",
    "check_perturbation",
    "evaluate",
    "get_domain",
    "initialize_world",
    "load_run_result",
    "load_task_file",
    "make_actor",
    "register_actor",
    "register_domain",
    "register_perturbation",
    "run",
    "run_episode",
    "run_experiment",
    "verify_task",
    "write_tau2_file",
]
__version__ = "0.1.0"

_SOURCES = (
    "tau2.errors",
    "tau2.world",
    "tau2.tasks",
    "tau2.tau2bench",
    "tau2.llm",
    "tau2.perturbations",
    "tau2.episode",
    "tau2.actors",
    "tau2.runs",
)
"""The packages the names of `__all__` come from, searched in order on first access."""
_RUNS_API = {
    "RunConfig": "tau2.config",
    "RunResult": "tau2.api",
    "run": "tau2.api",
    "arun": "tau2.api",
    "load_run_result": "tau2.api",
    "ExperimentConfig": "tau2.experiments",
    "ExperimentResult": "tau2.experiments",
    "run_experiment": "tau2.experiments",
    "arun_experiment": "tau2.experiments",
}
"""The Python API of runs and experiments, by the package each name comes from."""


def __getattr__(name: str) -> Any:
    """Load a re-exported name (or a subpackage) on first use, then keep it as a module attribute."""
    if name in __all__:
        for source in (_RUNS_API[name],) if name in _RUNS_API else _SOURCES:
            module = import_module(source)
            if hasattr(module, name):
                value = getattr(module, name)
                globals()[name] = value
                return value
    try:  # `tau2.world` and friends, as an eager `import tau2` used to leave them
        return import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module 'tau2' has no attribute {name!r}")
