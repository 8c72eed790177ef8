"""Verification rules for a planned task (V1–V6 of the telecom spec, §9.5).

V1 the intent's success predicate holds once the task's set-up calls (the catalog's preamble, the intent's
set-up) have run, before any fault is planted; V2 every init call applies and each
subtask's checks hold right after its calls; V3 the predicate is false after initialisation and after every
strict prefix of the solution; V4 every solution step succeeds; V5 the predicate holds after the solution,
or, for a transfer task, the world stays broken even once its fixable subtasks are fixed; V6 the stored
assertions pass on the final state (for a fixable task the success ones have just been checked, so only its
extras remain; for a transfer task the final state is the initialised one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tau2.generator.build import Plan
from tau2.tasks import EnvCall, Intent, Step, Subtask, all_passed, first_failure
from tau2.world import World

Situation = Callable[[World], dict[str, str]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of verifying one plan."""

    problem: str | None
    """Why the task is rejected (rule and detail), or None when it verifies."""
    situation: dict[str, str] = field(default_factory=dict)
    """Facts read from the world right after initialisation."""
    snapshots: tuple[bytes, ...] = ()
    """The world before each solution step but the last, when asked for (for the redundant-step lint)."""


def baseline_problem(world: World, setup: Sequence[EnvCall], intent: Intent) -> str | None:
    """V1 on an untouched world, which the set-up calls change (the caller restores it), or None when it
    holds."""
    problem = apply_calls(world, setup, "set-up")
    if problem is not None:
        return problem
    failure = first_failure(world, intent.success)
    return None if failure is None else f"V1: before the faults are planted {failure.describe()}"


def apply_calls(world: World, calls: Sequence[EnvCall], owner: str) -> str | None:
    """Run init calls in order (V2); the first failure, or None."""
    for call in calls:
        result = world.run_env_function(call.side, call.name, call.arguments)
        if result.error is not None:
            return f"V2: {owner}: init call {call.describe()} failed: {result.error.message}"
    return None


def apply_subtask(world: World, subtask: Subtask) -> str | None:
    """Plant one subtask's fault and check its symptoms (V2); the first failure, or None."""
    problem = apply_calls(world, subtask.init, subtask.name)
    if problem is not None:
        return problem
    failure = first_failure(world, subtask.checks)
    return None if failure is None else f"V2: {subtask.name}: check {failure.describe()}"


def settle(world: World, plan: Plan, situation: Situation, keep_snapshots: bool = False) -> Verdict:
    """V3–V6 on a world the plan has just initialised: replay the solution and judge the end state."""
    facts = situation(world)
    success = plan.intent.success
    if all_passed(world, success):
        return Verdict("V3: the intent is already satisfied after initialisation", facts)
    if plan.transfer:
        return Verdict(_stays_broken(world, plan), facts)
    snapshots: list[bytes] = []
    steps = plan.arrangement.steps
    fixed = False
    for number, step in enumerate(steps, start=1):
        if keep_snapshots and number < len(steps):
            snapshots.append(world.snapshot())
        problem = _perform(world, step, number)
        if problem is not None:
            return Verdict(problem, facts)
        fixed = all_passed(world, success)
        if fixed and number < len(steps):
            return Verdict(f"V3: the intent is satisfied after step {number} of {len(steps)}", facts)
    if not fixed:
        return Verdict("V5: the solution does not satisfy the intent", facts)
    failure = first_failure(world, plan.extras)
    if failure is not None:
        return Verdict(f"V6: {failure.describe()}", facts)
    return Verdict(None, facts, tuple(snapshots))


def _stays_broken(world: World, plan: Plan) -> str | None:
    """V5–V6 of a transfer task: its failure assertions hold after initialisation (its final state, since
    a transfer changes nothing) and still hold, with the intent unsatisfied, once every fixable subtask of
    the composition has been fixed (so the transfer is needed whatever else the agent does)."""
    failure = first_failure(world, plan.assertions)
    if failure is not None:
        return f"V6: {failure.describe()}"
    if not plan.arrangement.steps:
        return None
    for number, step in enumerate(plan.arrangement.steps, start=1):
        problem = _perform(world, step, number)
        if problem is not None:
            return problem
    if all_passed(world, plan.intent.success):
        return "V5: fixing the fixable subtasks satisfies the intent, so no transfer is needed"
    failure = first_failure(world, plan.assertions)
    return None if failure is None else f"V5: once the fixable subtasks are fixed, {failure.describe()}"


def _perform(world: World, step: Step, number: int) -> str | None:
    """Perform one solution step by its seat (V4); why it failed, or None."""
    result = world.call(step.side, step.name, step.arguments)
    if result.error is None:
        return None
    return f"V4: step {number} ({step.describe()}) failed: {result.error.code.value}: {result.error.message}"
