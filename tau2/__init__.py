"""tau2: a dual-control simulation framework for evaluating conversational customer-service agents."""

from tau2.domain import Domain, available_domains, get_domain, register_domain
from tau2.errors import ErrorCode, ToolError, UnknownDomainError, UserInputError
from tau2.results import ToolFailure, ToolResult
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
from tau2.world import World

__all__ = [
    "AssertionCall",
    "Domain",
    "EnvCall",
    "ErrorCode",
    "Evaluation",
    "InitialData",
    "Side",
    "SolutionStep",
    "Task",
    "Tool",
    "ToolError",
    "ToolFailure",
    "ToolKind",
    "ToolResult",
    "ToolSet",
    "ToolTable",
    "UnknownDomainError",
    "UserInputError",
    "UserInstructions",
    "UserScenario",
    "World",
    "available_domains",
    "get_domain",
    "register_domain",
]
__version__ = "0.1.0"
