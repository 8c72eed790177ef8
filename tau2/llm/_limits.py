"""Per-provider rate limits: a cap on concurrent requests and, optionally, on requests per minute.

Limits are keyed by provider (`openai`, `anthropic`, `hosted_vllm`, …) or by the host of an API base
(`localhost:8000`); the client holds a slot of the first matching limit around each HTTP request.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager

from pydantic import BaseModel, ConfigDict, Field

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

_WINDOW_S = 60.0


class ProviderLimit(BaseModel):
    """How hard one provider (or one server) may be driven."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_concurrent: int = Field(ge=1)
    requests_per_minute: int | None = Field(default=None, ge=1)


class _Gate:
    """The live state of one limit inside one event loop."""

    def __init__(self, limit: ProviderLimit, clock: Clock, sleep: Sleep) -> None:
        self._semaphore = asyncio.Semaphore(limit.max_concurrent)
        self._per_minute = limit.requests_per_minute
        self._starts: deque[float] = deque()
        self._pacing = asyncio.Lock()
        self._clock = clock
        self._sleep = sleep

    async def _pace(self) -> None:
        """Wait until fewer than `requests_per_minute` requests started in the last minute."""
        if self._per_minute is None:
            return
        async with self._pacing:
            while True:
                now = self._clock()
                while self._starts and now - self._starts[0] >= _WINDOW_S:
                    self._starts.popleft()
                if len(self._starts) < self._per_minute:
                    self._starts.append(now)
                    return
                await self._sleep(self._starts[0] + _WINDOW_S - now)

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold one concurrency slot, started within the per-minute budget."""
        async with self._semaphore:
            await self._pace()
            yield


class RateLimits:
    """A table of limits shared by every model call of a process (see `default_limits`)."""

    def __init__(
        self,
        limits: Mapping[str, ProviderLimit] | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._limits: dict[str, ProviderLimit] = dict(limits or {})
        self._gates: dict[tuple[str, asyncio.AbstractEventLoop], _Gate] = {}
        self._clock = clock
        self._sleep = sleep

    def configure(self, key: str, limit: ProviderLimit | None) -> None:
        """Set (or with None, remove) the limit of a provider name or an API host."""
        if limit is None:
            self._limits.pop(key, None)
        else:
            self._limits[key] = limit
        self._gates = {gate_key: gate for gate_key, gate in self._gates.items() if gate_key[0] != key}

    def limit_for(self, keys: Iterable[str]) -> tuple[str, ProviderLimit] | None:
        """The first configured key among `keys`, with its limit."""
        for key in keys:
            if key in self._limits:
                return key, self._limits[key]
        return None

    @asynccontextmanager
    async def slot(self, keys: Iterable[str]) -> AsyncIterator[None]:
        """Hold a request slot of the first configured key; no limit applies when none matches."""
        gate = self.gate(keys)
        if gate is None:
            yield
            return
        async with gate.hold():
            yield

    def gate(self, keys: Iterable[str]) -> _Gate | None:
        """The running loop's gate of the first configured key among `keys`, or None when none is; a
        caller with no gate can skip `slot` altogether (the common, unlimited case stays cheap)."""
        if not self._limits:
            return None
        found = self.limit_for(keys)
        if found is None:
            return None
        key, limit = found
        gate_key = (key, asyncio.get_running_loop())
        gate = self._gates.get(gate_key)
        if gate is None:
            gate = self._gates[gate_key] = _Gate(limit, self._clock, self._sleep)
        return gate


_DEFAULT = RateLimits()


def default_limits() -> RateLimits:
    """The process-wide table the client uses unless given another; empty (unlimited) until configured."""
    return _DEFAULT
