"""What the RL environments report when an episode ends: reward, termination flags and an info dict."""

from __future__ import annotations

from typing import Any

from tau2.episode import EpisodeResult, TerminationReason


def is_truncated(result: EpisodeResult) -> bool:
    """Hitting the step limit cuts an episode off (truncation); every other ending terminates it."""
    return result.termination is TerminationReason.MAX_STEPS


def outcome_info(result: EpisodeResult) -> dict[str, Any]:
    """The final info: termination and evaluation, without timings (equal episodes give equal infos)."""
    return {
        "task_id": result.task_id,
        "termination": result.termination.value,
        "termination_detail": result.trajectory.termination_detail,
        "evaluation": result.evaluation.model_dump(mode="json"),
    }
