"""The episode: its configuration, the actor contract, the turn protocol and the orchestrator that runs
it, the trajectory it records, and the evaluation that judges it."""

from tau2.episode._actor import Actor, ActorSpec, ActorTurn, SeatContext
from tau2.episode._config import EpisodeConfig, Mode, mode_label
from tau2.episode._evaluation import ActionRecord, AssertionRecord, EvaluationResult, evaluate
from tau2.episode._orchestrator import EpisodeResult, EpisodeTiming, run_episode, seat_contexts
from tau2.episode._protocol import DONE_SCHEMA, DONE_TOOL, GREETING
from tau2.episode._trajectory import Entry, EntryKind, TerminationReason, ToolCall, Trajectory

__all__ = [
    "DONE_SCHEMA",
    "DONE_TOOL",
    "GREETING",
    "ActionRecord",
    "Actor",
    "ActorSpec",
    "ActorTurn",
    "AssertionRecord",
    "Entry",
    "EntryKind",
    "EpisodeConfig",
    "EpisodeResult",
    "EpisodeTiming",
    "EvaluationResult",
    "Mode",
    "SeatContext",
    "TerminationReason",
    "ToolCall",
    "Trajectory",
    "evaluate",
    "mode_label",
    "run_episode",
    "seat_contexts",
]
