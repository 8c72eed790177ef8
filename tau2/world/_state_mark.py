"""A world's state at one moment, kept as cheaply as its domain allows, to list what changed since: a copy
sharing the records of a domain that shares them between worlds (`Domain.fresh_state`), compared on what
the two states do not share, else a snapshot, compared whole. A large database is then neither serialised
nor parsed whole for every comparison."""

from __future__ import annotations

from pydantic import BaseModel

from tau2.world._state_diff import StateChange, shared_state_changes, state_changes
from tau2.world._world import World


class StateMark:
    """The state of a world when the mark was made; `changes_to(world)` lists the differences from it."""

    __slots__ = ("_state",)

    def __init__(self, world: World) -> None:
        copy = world.domain.fresh_state
        self._state: BaseModel | bytes = copy(world.state) if copy is not None else world.snapshot()

    def changes_to(self, world: World) -> list[StateChange]:
        """The differences from the marked state to `world`'s state now (the same changes as comparing
        the two states' whole snapshots)."""
        if isinstance(self._state, bytes):
            return state_changes(self._state, world.snapshot())
        return shared_state_changes(self._state, world.state)

    def changes_and_now(self, world: World) -> tuple[list[StateChange], StateMark]:
        """`changes_to(world)`, and a mark of `world`'s state now (of a snapshot, the one just compared)."""
        if isinstance(self._state, bytes):
            now = StateMark.__new__(StateMark)
            now._state = world.snapshot()
            return state_changes(self._state, now._state), now
        return self.changes_to(world), StateMark(world)

    def snapshot(self) -> bytes:
        """The marked state as canonical JSON bytes (what `World.snapshot` gave when it was made)."""
        if isinstance(self._state, bytes):
            return self._state
        return self._state.__pydantic_serializer__.to_json(self._state)
