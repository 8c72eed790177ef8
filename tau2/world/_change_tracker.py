"""What a sequence of tool calls changes in a world, kept cheaply: the starting state is saved only when the
first write tool is called (read-only calls change nothing), as the domain's copy sharing its records where
the domain makes one, so a large database is not serialised whole for every simulation."""

from __future__ import annotations

from tau2.world._state_diff import StateChange
from tau2.world._state_mark import StateMark
from tau2.world._tools import ToolKind
from tau2.world._world import World


class ChangeTracker:
    """Call `before(name)` ahead of each tool call; `since_start()` then lists the state differences from
    the state before the first write to now."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._start: StateMark | None = None

    def before(self, name: str) -> None:
        """Note the state before the call of tool `name`, if it is the first write."""
        tool = self.world.tools.tool(name)
        if self._start is not None or tool is None or tool.kind is not ToolKind.WRITE:
            return
        self._start = StateMark(self.world)

    def since_start(self) -> list[StateChange]:
        """The differences from the state before the first write to now (none without a write)."""
        return [] if self._start is None else self._start.changes_to(self.world)
