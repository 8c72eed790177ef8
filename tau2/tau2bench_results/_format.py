"""The τ²-bench results file (its release format) as pydantic models: run `info`, `tasks` and `simulations`
with their messages, tool calls (with requestors), termination reasons and reward details.

Field names and types follow τ²-bench's own data model so that files we write load with its loader and
files it writes load here; fields we never use are kept loosely typed or ignored on reading.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, NonNegativeInt

from tau2.tau2bench import Tau2Task, ToolRequestor


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Tau2ToolCall(_Model):
    """A tool call inside a participant message; `requestor` is the seat that made it."""

    id: str = ""
    name: str
    arguments: dict[str, JsonValue]
    requestor: ToolRequestor = "assistant"


class SystemMessage(_Model):
    """A system message (never produced by a seat)."""

    role: Literal["system"]
    content: str | None = None
    turn_idx: int | None = None
    timestamp: str | None = None


class TokenUsage(_Model):
    """The tokens of the model call that produced a message (other keys a provider adds are ignored)."""

    prompt_tokens: NonNegativeInt | None = None
    completion_tokens: NonNegativeInt | None = None


class ParticipantMessage(_Model):
    """A message of the agent (`assistant`) or the user: text, tool calls, or both."""

    role: Literal["assistant", "user"]
    content: str | None = None
    tool_calls: list[Tau2ToolCall] | None = None
    turn_idx: int | None = None
    timestamp: str | None = None
    cost: float | None = None
    usage: TokenUsage | None = None


class ToolMessage(_Model):
    """The result of one tool call, answering the call with the same `id`."""

    id: str
    role: Literal["tool"]
    content: str | None = None
    requestor: ToolRequestor = "assistant"
    error: bool = False
    turn_idx: int | None = None
    timestamp: str | None = None


Message = Annotated[SystemMessage | ParticipantMessage | ToolMessage, Discriminator("role")]


class EnvAssertionCheck(_Model):
    """One stored assertion and whether it held."""

    env_assertion: dict[str, JsonValue]
    met: bool
    reward: float


class ActionCheck(_Model):
    """One gold action and whether the trajectory performed it."""

    action: dict[str, JsonValue]
    action_match: bool
    action_reward: float


class DBCheck(_Model):
    """Whether the final database equals the one the gold actions produce."""

    db_match: bool
    db_reward: float


class CommunicateCheck(_Model):
    """One piece of information the agent had to tell, and whether it did."""

    info: str
    met: bool
    justification: str | None = None


class NLAssertionCheck(_Model):
    """The judge's verdict on one natural-language assertion."""

    nl_assertion: str
    met: bool
    justification: str | None = None


class RewardInfo(_Model):
    """The reward of a simulation and the checks behind it."""

    reward: float
    db_check: DBCheck | None = None
    env_assertions: list[EnvAssertionCheck] | None = None
    action_checks: list[ActionCheck] | None = None
    nl_assertions: list[NLAssertionCheck] | None = None
    communicate_checks: list[CommunicateCheck] | None = None
    reward_basis: list[str] | None = None
    reward_breakdown: dict[str, float] | None = None
    info: dict[str, JsonValue] | None = None


class SimulationRun(_Model):
    """One simulation of one task (one trial)."""

    id: str
    task_id: str
    timestamp: str | None = None
    start_time: str
    end_time: str
    duration: float
    termination_reason: str
    agent_cost: float | None = None
    user_cost: float | None = None
    reward_info: RewardInfo | None = None
    messages: list[Message]
    trial: int | None = None
    seed: int | None = None
    policy: str | None = None
    """The agent's instructions in this simulation (τ²-bench records them for its knowledge domain, where
    they depend on the retrieval configuration and, for some configurations, on the task)."""


class SeatInfo(_Model):
    """Which implementation (and model) played a seat."""

    implementation: str
    llm: str | None = None
    llm_args: dict[str, JsonValue] | None = None


class EnvironmentInfo(_Model):
    """The domain and the agent policy of the run."""

    domain_name: str
    policy: str
    tool_defs: dict[str, JsonValue] | None = None


class RunInfo(_Model):
    """How the run was made."""

    git_commit: str
    num_trials: int
    max_steps: int
    max_errors: int
    user_info: SeatInfo
    agent_info: SeatInfo
    environment_info: EnvironmentInfo
    seed: int | None = None
    retrieval_config: str | None = None
    """The retrieval configuration of a knowledge domain's run, by name (e.g. `bm25`)."""
    retrieval_config_kwargs: dict[str, JsonValue] | None = None
    """Its options, e.g. `{"top_k": 5}`."""


class Results(_Model):
    """A whole results file."""

    timestamp: str | None = None
    info: RunInfo
    tasks: list[Tau2Task]
    simulations: list[SimulationRun] = Field(default_factory=list)
