"""`tool_faults`: a seat's tool call fails before it reaches the world, with the error a real backend gives
when it is down or slow, at a set rate; for the agent's seat, the customer's or both, for named tools or
kinds; transient (the same call again goes through) or persistent (it keeps failing)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from tau2.errors import ErrorCode
from tau2.perturbations._kind import (
    CallAttempt,
    EpisodePerturbation,
    Interception,
    PerturbationSettings,
    Step,
)
from tau2.perturbations._record import PerturbationEvent
from tau2.world import Side, ToolResult

FAULT = "fault"

ToolKindName = Literal["read", "write", "generic"]
_READ_WRITE: tuple[ToolKindName, ...] = ("read", "write")

FAULT_MESSAGES = (
    "503 Service Unavailable: the service is temporarily unable to handle the request",
    "504 Gateway Timeout: the upstream service did not respond in time",
    "connection reset by peer while sending the request",
    "429 Too Many Requests: rate limit exceeded, try again later",
)
"""What a faulted call answers: errors of a backend that is down, slow or overloaded, none saying whether
a retry will succeed."""


class ToolFaultSettings(PerturbationSettings):
    """Tool calls failing before they reach the world."""

    rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """The probability that a call subject to faults fails (each drawn independently)."""
    seat: Literal["agent", "user", "both"] = "agent"
    """Whose calls are subject to faults: the agent's, the customer's or both."""
    tools: list[str] | None = None
    """Only calls of these tools (default: every tool of the kinds given)."""
    kinds: list[ToolKindName] = Field(default_factory=lambda: list(_READ_WRITE))
    """Only calls of tools of these kinds (`read`, `write`; `generic` tools, such as a transfer, only when
    listed)."""
    mode: Literal["transient", "persistent"] = "transient"
    """`transient`: the same call (tool and arguments) made again after a fault goes through;
    `persistent`: it fails again every time."""


class ToolFaults(EpisodePerturbation):
    """Draws, for each call subject to faults, whether it fails; remembers the calls that failed so a retry
    goes through (transient) or fails again (persistent) without a new draw."""

    def __init__(self, settings: ToolFaultSettings, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.settings = settings
        self._failed: set[tuple[Side, str, str]] = set()

    def _subject(self, attempt: CallAttempt) -> bool:
        settings = self.settings
        if settings.seat != "both" and attempt.seat.value != settings.seat:
            return False
        if settings.tools is not None and attempt.tool.name not in settings.tools:
            return False
        return attempt.tool.kind.value in settings.kinds

    def intercept(self, attempt: CallAttempt) -> Interception | None:
        if self.settings.rate <= 0.0 or not self._subject(attempt):
            return None
        key = (attempt.seat, attempt.tool.name, json.dumps(attempt.arguments, sort_keys=True, default=str))
        if key in self._failed:
            if self.settings.mode == "transient":
                self._failed.discard(key)
                return None
            return _fault(self.rng.choice(FAULT_MESSAGES), repeat=True)
        if self.rng.random() >= self.settings.rate:
            return None
        self._failed.add(key)
        return _fault(self.rng.choice(FAULT_MESSAGES), repeat=False)

    def noticed(self, steps: Sequence[Step], events: Sequence[PerturbationEvent]) -> bool:
        """The agent noticed when a faulted call was made again with the same arguments: by the agent
        itself, or by the customer after the agent spoke (asked it to try again)."""
        faulted = {event.entry for event in events}
        for place, step in enumerate(steps):
            if step.index not in faulted:
                continue
            agent_spoke = False
            for later in steps[place + 1 :]:
                if later.seat is Side.AGENT and later.tool is None:
                    agent_spoke = True
                elif (
                    later.seat is step.seat
                    and later.tool == step.tool
                    and later.arguments == step.arguments
                    and (step.seat is Side.AGENT or agent_spoke)
                ):
                    return True
        return False


def _fault(message: str, *, repeat: bool) -> Interception:
    return Interception(
        result=ToolResult.failure(ErrorCode.UNAVAILABLE, message), effect=FAULT, detail=message, repeat=repeat
    )


def tool_faults(settings: ToolFaultSettings, name: str, rng: random.Random) -> ToolFaults:
    """The `tool_faults` effect on one episode."""
    return ToolFaults(settings, name, rng)
