"""Lint checks that replay a task: its set-up, its reference actions in order (as τ²-bench replays them to
build the reference database), verification, and what an agent doing nothing scores."""

from __future__ import annotations

from pathlib import Path

from tau2.episode import (
    IdleOutcome,
    UnplayableKind,
    idle_outcome,
    replay_reference_results,
    unrealisable,
    verify_task,
)
from tau2.tasks import Task

SETUP_FAILS = "setup_fails"
REFERENCE_ACTION_FAILS = "reference_action_fails"
REFERENCE_AFTER_TRANSFER = "reference_after_transfer"
REFERENCE_TOOL_NOT_OFFERED = "reference_tool_not_offered"
VERIFICATION_FAILS = "verification_fails"
DO_NOTHING_PASSES = "do_nothing_passes"
DO_NOTHING_PASSES_UNLESS_JUDGED = "do_nothing_passes_unless_judged"

_UNPLAYABLE_CHECKS = {
    UnplayableKind.REFUSED: REFERENCE_ACTION_FAILS,
    UnplayableKind.AFTER_TRANSFER: REFERENCE_AFTER_TRANSFER,
    UnplayableKind.NOT_OFFERED: REFERENCE_TOOL_NOT_OFFERED,
}
_IDLE_CHECKS = {
    IdleOutcome.PASSES: DO_NOTHING_PASSES,
    IdleOutcome.PASSES_UNLESS_JUDGED: DO_NOTHING_PASSES_UNLESS_JUDGED,
}


def reference_findings(task: Task, data_dir: Path | None, idle: bool = True) -> dict[str, str]:
    """Check name → detail for every reference check that fires (those of an agent doing nothing only with
    `idle`); `TaskSetupError` when the task cannot be set up."""
    found: dict[str, list[str]] = {}
    world, results = replay_reference_results(task, data_dir)
    for item in unrealisable(task, world.domain, results):
        found.setdefault(_UNPLAYABLE_CHECKS[item.kind], []).append(item.note)
    verification = verify_task(task, data_dir)
    if not verification.valid and verification.reason is not None:
        found[VERIFICATION_FAILS] = [verification.reason]
    if idle and (outcome := idle_outcome(task, data_dir)) in _IDLE_CHECKS:
        found[_IDLE_CHECKS[outcome]] = [_IDLE_DETAILS[outcome]]
    return {check: "; ".join(details) for check, details in found.items()}


_IDLE_DETAILS = {
    IdleOutcome.PASSES: "an agent that changes nothing and says nothing meets every gating check",
    IdleOutcome.PASSES_UNLESS_JUDGED: (
        "an agent that changes nothing and says nothing meets every gating check but the natural-language "
        "assertions, which only a judge can fail"
    ),
}
