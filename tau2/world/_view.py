"""A read-only view of one episode's world, for reference actors that judge the world itself (the oracle
agent checks a customer's step by its effect, not by the customer's word). Model-driven actors are never
given one: they see only what their seat observes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tau2.world._results import ToolResult
from tau2.world._state_diff import StateChange
from tau2.world._state_mark import StateMark
from tau2.world._tools import Side
from tau2.world._world import World


class Rehearsal:
    """What calls did when played in order from a world's starting state: each call's result, and the
    state changes each one made (the changes of call i are from the state just before it)."""

    __slots__ = ("before", "changes", "results")

    def __init__(
        self, results: list[ToolResult], changes: list[list[StateChange]], before: list[StateMark]
    ) -> None:
        self.results = results
        self.changes = changes
        self.before = before
        """The state just before each call (`WorldView.changes_since` compares the episode's with it)."""


class WorldView:
    """The episode's world as it is now, read only, and a scratch copy of its starting state to rehearse
    calls on; nothing done through the view reaches the episode's world."""

    __slots__ = ("_initial", "_world")

    def __init__(self, world: World, initial: StateMark) -> None:
        self._world = world
        self._initial = initial

    def snapshot(self) -> bytes:
        """The episode's state now, as canonical JSON bytes."""
        return self._world.snapshot()

    def changes_since(self, mark: StateMark) -> list[StateChange]:
        """The differences from a marked state (one of a rehearsal's) to the episode's state now."""
        return mark.changes_to(self._world)

    def rehearse(self, calls: Sequence[tuple[Side, str, Mapping[str, Any]]]) -> Rehearsal:
        """Play `calls` (seat, tool, arguments) in order on a fresh copy of the episode's starting world."""
        state_type = type(self._world.state)
        scratch = World(self._world.domain, state_type.model_validate_json(self._initial.snapshot()))
        results: list[ToolResult] = []
        changes: list[list[StateChange]] = []
        before: list[StateMark] = []
        mark = StateMark(scratch)
        for side, name, arguments in calls:
            before.append(mark)
            results.append(scratch.call(side, name, arguments))
            changed, mark = mark.changes_and_now(scratch)
            changes.append(changed)
        return Rehearsal(results, changes, before)
