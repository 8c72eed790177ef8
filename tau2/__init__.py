"""tau2: a dual-control simulation framework for evaluating conversational customer-service agents.

The main API is re-exported here; importing it loads neither litellm nor the CLI.
"""

from tau2.actors.base import (
    Actor,
    ActorSpec,
    ActorTurn,
    ContextOverflowError,
    InfrastructureError,
    SeatContext,
)
from tau2.actors.registry import actor_kinds, make_actor, register_actor
from tau2.basis_evaluation import CheckRecord
from tau2.checks import check_domain
from tau2.compat.tau2bench import load_task_file, write_tau2_file
from tau2.domain import Domain, available_domains, get_domain, register_domain
from tau2.episode import EpisodeResult, run_episode
from tau2.errors import ErrorCode, ToolError, UnknownDomainError, UserInputError
from tau2.evaluation import EvaluationResult, evaluate
from tau2.initialize import TaskSetupError, initialize_world
from tau2.modes import EpisodeConfig, Mode
from tau2.nl_judge import NLJudge
from tau2.records import SimulationRecord
from tau2.results import ToolFailure, ToolResult
from tau2.reward_basis import RewardType
from tau2.suite import Suite
from tau2.task import (
    AssertionCall,
    EnvCall,
    Evaluation,
    InitialData,
    SolutionStep,
    Task,
    UserInstructions,
    UserScenario,
)
from tau2.tools import Side, Tool, ToolKind, ToolSet, ToolTable
from tau2.trajectory import Entry, EntryKind, TerminationReason, ToolCall, Trajectory, Usage
from tau2.verify import TaskVerification, verify_task
from tau2.world import World

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
    "InfrastructureError",
    "InitialData",
    "Mode",
    "NLJudge",
    "RewardType",
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
    "available_domains",
    "check_domain",
    "evaluate",
    "get_domain",
    "initialize_world",
    "load_task_file",
    "make_actor",
    "register_actor",
    "register_domain",
    "run_episode",
    "verify_task",
    "write_tau2_file",
]
__version__ = "0.1.0"
