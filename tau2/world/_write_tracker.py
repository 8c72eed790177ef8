"""Which records each tool call changed: the world is copied before every call that may write (any tool
but a read) and compared with itself after it, so each record an episode changes is attributed to the
calls, and seats, that changed it. A domain that copies its state by sharing records (`fresh_state`) is
compared on what the call replaced alone, so a large database costs no more than a small one. It is a
`ChangeTracker` too, so a replay gets both the changes since the first write and their calls."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.world._change_tracker import ChangeTracker
from tau2.world._state_diff import StateChange, shared_state_changes, state_changes
from tau2.world._state_records import record_name, record_paths
from tau2.world._tools import Side, ToolKind
from tau2.world._world import World


class WriteCall(BaseModel):
    """A tool call that changed a record: the trajectory entry of the call, the seat that made it, the
    tool."""

    model_config = ConfigDict(frozen=True)

    entry: int
    seat: Side
    tool: str


class RecordWrite(BaseModel):
    """A record an episode changed (`record`: its name, e.g. `crm.lines[L1019]` or `orders.#W8100001`),
    and the calls that changed it, in order (empty when no tracked call did)."""

    model_config = ConfigDict(frozen=True)

    record: str
    calls: list[WriteCall] = []


class WriteTracker(ChangeTracker):
    """Call `before(name)` ahead of each tool call and `after(call)` once it ran; `written(changes)` then
    names the records an episode's changes touch, each with the calls that changed it."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self._before: BaseModel | dict[str, bytes] | None = None
        self._calls: dict[str, list[WriteCall]] = {}

    def before(self, name: str) -> None:
        """Note the state before a call of tool `name`, unless the tool only reads."""
        super().before(name)
        tool = self.world.tools.tool(name)
        if tool is None or tool.kind is ToolKind.READ:
            self._before = None
            return
        copy = self.world.domain.fresh_state
        self._before = copy(self.world.state) if copy is not None else self._fields()

    def after(self, call: WriteCall) -> None:
        """Attribute what the call noted by `before` changed to `call`."""
        start, self._before = self._before, None
        if start is None:
            return
        if isinstance(start, BaseModel):
            changes = shared_state_changes(start, self.world.state)
        else:
            now = self._fields()
            changes = [
                change for name, bytes_ in start.items() for change in state_changes(bytes_, now[name])
            ]
        for path in record_paths(type(self.world.state), changes):
            self._calls.setdefault(path, []).append(call)

    def _fields(self) -> dict[str, bytes]:
        """The state's top-level fields, each as JSON of the state holding it alone (so its changes have
        the state's paths): a call that changes one field is compared on that field only."""
        state = self.world.state
        serializer = state.__pydantic_serializer__
        return {name: serializer.to_json(state, include={name}) for name in type(state).model_fields}

    def written(self, changes: Sequence[StateChange]) -> dict[str, RecordWrite]:
        """The records `changes` (from the episode's start to now) touch, by path, each with its name and
        the calls that changed it."""
        state = self.world.state
        return {
            path: RecordWrite(record=record_name(state, place, changes), calls=self._calls.get(path, []))
            for path, place in record_paths(type(state), changes).items()
        }
