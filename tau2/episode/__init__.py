"""The episode: its configuration, the actor contract, the step-driven episode core that keeps the turn
protocol (`Episode`), the orchestrator that runs it with actors, the trajectory it records, and the
evaluation that judges it."""

from tau2.episode._actor import Actor, ActorSpec, ActorTurn, SeatContext, WorldObserver, hand_world_view
from tau2.episode._basis import (
    FINISHED,
    CheckRecord,
    evaluate_basis,
    gated_reward,
    rejudged_checks,
    replay_reference,
    replay_reference_results,
)
from tau2.episode._check_actor import RandomActor, check_actor, protocol_problems
from tau2.episode._config import EpisodeConfig, EpisodeSettings, Mode, mode_label
from tau2.episode._episode import Episode, Turn
from tau2.episode._evaluation import ActionRecord, AssertionRecord, EvaluationResult, evaluate
from tau2.episode._idle import IdleOutcome, idle_outcome
from tau2.episode._judge import (
    DETERMINISTIC_FAILURE,
    NOT_JUDGED,
    NOT_NEEDED,
    JudgePanel,
    JudgeRecord,
    JudgeSkip,
    NLJudge,
    Verdict,
    simulation_key,
)
from tau2.episode._judge_gate import judge_needed, not_needed
from tau2.episode._orchestrator import run_episode, start_actors, take_turns
from tau2.episode._protocol import DONE_SCHEMA, DONE_TOOL, GREETING
from tau2.episode._result import EpisodeResult, EpisodeTiming
from tau2.episode._seat_contexts import agent_policy, seat_contexts, shipped_policy
from tau2.episode._structure import TaskStructureError, check_structure, structure_problem
from tau2.episode._trajectory import (
    Entry,
    EntryKind,
    RejectedReply,
    TerminationReason,
    ToolCall,
    Trajectory,
)
from tau2.episode._verify import TaskVerification, verify_task
from tau2.episode._verify_basis import Unplayable, UnplayableKind, unrealisable

__all__ = [
    "DETERMINISTIC_FAILURE",
    "DONE_SCHEMA",
    "DONE_TOOL",
    "FINISHED",
    "GREETING",
    "NOT_JUDGED",
    "NOT_NEEDED",
    "ActionRecord",
    "Actor",
    "ActorSpec",
    "ActorTurn",
    "AssertionRecord",
    "CheckRecord",
    "Entry",
    "EntryKind",
    "Episode",
    "EpisodeConfig",
    "EpisodeResult",
    "EpisodeSettings",
    "EpisodeTiming",
    "EvaluationResult",
    "IdleOutcome",
    "JudgePanel",
    "JudgeRecord",
    "JudgeSkip",
    "Mode",
    "NLJudge",
    "RandomActor",
    "RejectedReply",
    "SeatContext",
    "TaskStructureError",
    "TaskVerification",
    "TerminationReason",
    "ToolCall",
    "Trajectory",
    "Turn",
    "Unplayable",
    "UnplayableKind",
    "Verdict",
    "WorldObserver",
    "agent_policy",
    "check_actor",
    "check_structure",
    "evaluate",
    "evaluate_basis",
    "gated_reward",
    "hand_world_view",
    "idle_outcome",
    "judge_needed",
    "mode_label",
    "not_needed",
    "protocol_problems",
    "rejudged_checks",
    "replay_reference",
    "replay_reference_results",
    "run_episode",
    "seat_contexts",
    "shipped_policy",
    "simulation_key",
    "start_actors",
    "structure_problem",
    "take_turns",
    "unrealisable",
    "verify_task",
]
