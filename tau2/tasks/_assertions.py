"""Running a task's assertion functions on a world: each must return the boolean the task expects."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.tasks._task import AssertionCall
from tau2.world import World


class AssertionOutcome(BaseModel):
    """What one assertion returned; an assertion that errors or returns a non-boolean does not pass."""

    model_config = ConfigDict(frozen=True)

    call: AssertionCall
    expected: bool
    actual: bool | None = None
    passed: bool
    error: str | None = None

    def describe(self) -> str:
        """One line: the call and what it returned (or why it failed)."""
        if self.error is not None:
            return f"{self.call.describe()} failed: {self.error}"
        return f"{self.call.describe()} returned {self.actual}, expected {self.expected}"


def check_assertion(world: World, call: AssertionCall) -> AssertionOutcome:
    """Run one assertion on `world`."""
    result = world.run_env_function(call.side, call.name, call.arguments)
    if result.error is not None:
        error = f"{result.error.code.value}: {result.error.message}"
        return AssertionOutcome(call=call, expected=call.expected, passed=False, error=error)
    if not isinstance(result.content, bool):
        error = f"returned {result.content!r}, not a boolean"
        return AssertionOutcome(call=call, expected=call.expected, passed=False, error=error)
    passed = result.content is call.expected
    return AssertionOutcome(call=call, expected=call.expected, actual=result.content, passed=passed)


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
        if not (result.ok and isinstance(result.content, bool) and result.content is call.expected):
            return False
    return True
