"""Running a task's assertion functions on a world: each must return the boolean the task expects, alone
or in an `Observation` with the value it compared."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.tasks._task import AssertionCall
from tau2.world import Observation, World


class AssertionOutcome(BaseModel):
    """What one assertion returned; an assertion that errors or returns a non-boolean does not pass."""

    model_config = ConfigDict(frozen=True)

    call: AssertionCall
    expected: bool
    actual: bool | None = None
    observed: JsonValue = None
    """What the assertion saw, when it says (None otherwise)."""
    passed: bool
    error: str | None = None

    def describe(self) -> str:
        """One line: the call and what it returned (or why it failed), with what it observed."""
        if self.error is not None:
            return f"{self.call.describe()} failed: {self.error}"
        seen = "" if self.observed is None else f" (observed {json.dumps(self.observed, ensure_ascii=False)})"
        return f"{self.call.describe()} returned {self.actual}{seen}, expected {self.expected}"


def check_assertion(world: World, call: AssertionCall) -> AssertionOutcome:
    """Run one assertion on `world`."""
    result = world.run_env_function(call.side, call.name, call.arguments)
    if result.error is not None:
        error = f"{result.error.code.value}: {result.error.message}"
        return AssertionOutcome(call=call, expected=call.expected, passed=False, error=error)
    verdict = Observation.of(result.content)
    if verdict is None:
        error = f"returned {result.content!r}, not a boolean"
        return AssertionOutcome(call=call, expected=call.expected, passed=False, error=error)
    return AssertionOutcome(
        call=call,
        expected=call.expected,
        actual=verdict.holds,
        observed=verdict.observed,
        passed=verdict.holds is call.expected,
    )


def run_assertions(world: World, assertions: Sequence[AssertionCall]) -> list[AssertionOutcome]:
    """Run every assertion, in order."""
    return [check_assertion(world, call) for call in assertions]


def first_failure(world: World, assertions: Sequence[AssertionCall]) -> AssertionOutcome | None:
    """The first assertion that does not pass, or None when all pass (stops at the first failure)."""
    for call in assertions:
        outcome = check_assertion(world, call)
        if not outcome.passed:
            return outcome
    return None


def all_passed(world: World, assertions: Sequence[AssertionCall]) -> bool:
    """Whether every assertion passes (the conjunction that decides a task); stops at the first failure.

    Verification asks this after every step of thousands of tasks, so it skips building outcomes."""
    for call in assertions:
        result = world.run_env_function(call.side, call.name, call.arguments)
        if not result.ok:
            return False
        verdict = result.content if isinstance(result.content, bool) else Observation.of(result.content)
        if (verdict.holds if isinstance(verdict, Observation) else verdict) is not call.expected:
            return False
    return True
