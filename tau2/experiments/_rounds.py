"""An experiment's units as the executor takes them: round by round (the next round is asked for only once
every unit of the one before has ended, since it depends on their outcomes), each unit admitted by the
spend cap when it is handed out, whatever executor takes them."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence

from tau2.runner import ArmUnit
from tau2.runs import SimulationRecord


class Rounds:
    """A unit stream (`tau2.runner.UnitStream`) of rounds: `first`, then what `next_round` gives each time
    the round before has ended (None or nothing: the experiment is over). `admit` is asked before a unit is
    handed out (False: nothing more is handed out); `finished` hears of every record."""

    def __init__(
        self,
        first: Sequence[ArmUnit],
        most: int,
        *,
        next_round: Callable[[], Sequence[ArmUnit] | None],
        admit: Callable[[ArmUnit], bool],
        finished: Callable[[ArmUnit, SimulationRecord], None],
    ) -> None:
        """`most`: at most how many units every round together may hand out."""
        self._queue = deque(first)
        self._most = most
        self._next_round = next_round
        self._admit = admit
        self._finished = finished
        self._in_flight = 0
        self._changed = asyncio.Event()
        self._over = False
        self.refused = False
        """Whether `admit` refused a unit (the spend cap stopped the experiment)."""

    def __len__(self) -> int:
        return self._most

    async def take(self) -> ArmUnit | None:
        """The next unit of the round, once the spend cap admits it; when the round has none left, waits
        for its units in flight to end and asks for the next round."""
        while not self._over:
            if self._queue:
                if not self._admit(self._queue[0]):
                    self.refused = self._over = True
                    break
                self._in_flight += 1
                return self._queue.popleft()
            if self._in_flight:
                self._changed.clear()
                await self._changed.wait()
                continue
            following = self._next_round()
            if not following:
                self._over = True
            else:
                self._queue.extend(following)
        return None

    def hand_back(self, item: ArmUnit) -> None:
        """A unit taken but not simulated goes first again."""
        self._in_flight -= 1
        self._queue.appendleft(item)
        self._changed.set()

    def done(self, item: ArmUnit, record: SimulationRecord) -> None:
        """A unit taken ended with `record`."""
        self._in_flight -= 1
        self._finished(item, record)
        self._changed.set()
