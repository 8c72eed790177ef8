"""Lint checks of a task's reward basis against what the task gives each component to check."""

from __future__ import annotations

from pathlib import Path

from tau2.episode import replay_reference
from tau2.tasks import RewardType, Task, initialize_world
from tau2.tau2bench import BASIS_IMPLIED_KEY, METADATA_KEY
from tau2.world import same_state

REWARD_BASIS_INCONSISTENT = "reward_basis_inconsistent"
CRITERIA_OUTSIDE_BASIS = "criteria_outside_basis"


def basis_findings(task: Task, data_dir: Path | None) -> dict[str, str]:
    """Check name → detail for the basis checks that fire (tasks judged by a reward basis only)."""
    basis = task.evaluation.reward_basis
    if basis is None:
        return {}
    found = {}
    inconsistent = _vacuous_components(task, set(basis), implied=_implied(task))
    if RewardType.DB in basis and same_state(
        replay_reference(task, data_dir).state, initialize_world(task, data_dir).state
    ):
        inconsistent.append("DB is in the basis but the reference actions leave the database as it starts")
    if inconsistent:
        found[REWARD_BASIS_INCONSISTENT] = "; ".join(inconsistent)
    outside = _unchecked_criteria(task, set(basis))
    if outside:
        found[CRITERIA_OUTSIDE_BASIS] = "; ".join(outside)
    return found


def _vacuous_components(task: Task, basis: set[RewardType], *, implied: bool) -> list[str]:
    """Components in the basis with nothing to check. An implied basis (τ²-bench's older files) names
    COMMUNICATE for every task, so an empty COMMUNICATE is only reported when the file wrote it."""
    evaluation = task.evaluation
    empty = {
        RewardType.ACTION: not evaluation.solution,
        RewardType.COMMUNICATE: not evaluation.communicate_info and not implied,
        RewardType.NL_ASSERTION: not evaluation.nl_assertions,
        RewardType.ENV_ASSERTION: not evaluation.assertions,
    }
    what = {
        RewardType.ACTION: "reference actions",
        RewardType.COMMUNICATE: "information to communicate",
        RewardType.NL_ASSERTION: "natural-language assertions",
        RewardType.ENV_ASSERTION: "assertions",
    }
    return [
        f"{kind.value} is in the basis but the task has no {what[kind]}"
        for kind in empty
        if kind in basis and empty[kind]
    ]


def _unchecked_criteria(task: Task, basis: set[RewardType]) -> list[str]:
    """Criteria the task states that its basis never checks."""
    evaluation = task.evaluation
    given = {
        RewardType.COMMUNICATE: bool(evaluation.communicate_info),
        RewardType.NL_ASSERTION: bool(evaluation.nl_assertions),
        RewardType.ENV_ASSERTION: bool(evaluation.assertions),
    }
    return [
        f"the task gives {kind.value} criteria but its basis ({', '.join(sorted(b.value for b in basis))}) "
        "never checks them"
        for kind, present in given.items()
        if present and kind not in basis
    ]


def _implied(task: Task) -> bool:
    kept = task.metadata.get(METADATA_KEY)
    return isinstance(kept, dict) and kept.get(BASIS_IMPLIED_KEY) is True
