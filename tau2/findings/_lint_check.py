"""The lint check extension point: what a check of one task is (`LintCheck`), what it reads (`LintedTask`),
and the registry that finds the built-in checks and those registered in code, declared or installed (entry
points `lint_check.NAME` of the `tau2.plugins` group)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from tau2._registry import Registry, named_registry
from tau2.findings._findings import Check
from tau2.tasks import Task
from tau2.world import World


@dataclass(frozen=True, eq=False)
class LintedTask:
    """What a lint check reads: the task, its world just after set-up (shared by every check, so a check
    must not change it) and the data directory the task is linted on (None: its domain's own data)."""

    task: Task
    world: World
    data_dir: Path | None
    errors_only: bool = False
    """Only the checks of severity error run (a failed simulation's task defects): a check below error is
    not asked, and a shared pass may leave out what only such checks read."""
    _batches: dict[Callable[[LintedTask], Mapping[str, str]], Mapping[str, str]] = field(
        default_factory=dict, repr=False
    )

    def batch(self, compute: Callable[[LintedTask], Mapping[str, str]]) -> Mapping[str, str]:
        """What `compute` finds (check name → detail), computed once per task however many checks read it:
        checks that share one costly pass (replaying the reference actions) each take their own line."""
        found = self._batches.get(compute)
        if found is None:
            found = self._batches[compute] = compute(self)
        return found


class LintCheck(Check):
    """One per-task check of `tau2 lint`: its name, severity and rule, and `find`, which returns what made
    it fire on a task (a line of detail) or None. A check is deterministic, offline and leaves the task and
    its world unchanged; `tau2.audit.check_lint_check` tries one on real tasks."""

    find: Callable[[LintedTask], str | None] = Field(exclude=True)


LINT_CHECK_REGISTRY: Registry[LintCheck] = named_registry(LintCheck, "lint check", "lint_check", "checks")
"""Every per-task lint check: the built-ins and those registered, declared or installed."""


def register_lint_check(check: LintCheck) -> LintCheck:
    """Make `check` run in every `tau2 lint` (and every run's task defects, for an error) of this process;
    a later registration of the same name replaces it."""
    return LINT_CHECK_REGISTRY.register(check.name, check)
