"""What a perturbation did in one simulation, as its record keeps it: each event (a fault injected, a
customer's call dropped, a fact of its brief withheld) and the kinds whose events the agent noticed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tau2.llm import Usage
from tau2.world import Side


class PerturbationEvent(BaseModel):
    """One thing a perturbation did: which kind, what effect, on whose call of which tool, where in the
    trajectory, and what the seat was told or not told."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """The perturbation's name (`tool_faults`, `unreliable_user`, …)."""
    effect: str
    """What it did: `fault` (a call failed before reaching the world), `dropped_call` (the customer's call
    never reached the world though the customer was answered as if it had), `withheld_fact` (a fact of
    the customer's brief was left out), or a plugin kind's own word."""
    seat: Side | None = None
    """The seat whose call or brief it touched."""
    tool: str | None = None
    """The tool called, for effects on a call."""
    entry: int | None = None
    """The index of the call's `tool_call` entry in the trajectory (its result is the next entry)."""
    detail: str | None = None
    """The error the seat was given, or the fact withheld."""
    repeat: bool = False
    """The effect repeats an earlier one (a persistent fault on the same call again), so no new draw was
    made for it: rates count the events without this flag."""
    usage: Usage | None = Field(default=None, exclude_if=lambda usage: usage is None)
    """What the model call behind the effect cost (a paraphrased brief), also counted in its seat's usage;
    None (left out of the record) for effects that asked no model."""


class PerturbationRecord(BaseModel):
    """Everything the perturbations of a simulation did; a simulation they left untouched has none."""

    model_config = ConfigDict(frozen=True)

    events: list[PerturbationEvent] = Field(min_length=1)
    noticed: list[str] = Field(default_factory=list)
    """The kinds whose events the agent noticed (retried a faulted call; had the state checked again after
    a dropped customer call), as each kind defines it."""

    def unreached_entries(self) -> frozenset[int]:
        """The trajectory entries (calls and their results) of calls that never reached the world."""
        return frozenset(self.events_by_entry())

    def events_by_entry(self) -> dict[int, list[PerturbationEvent]]:
        """The events that kept a call from the world, by the entries they concern: the call's and its
        result's."""
        found: dict[int, list[PerturbationEvent]] = {}
        for event in self.events:
            if event.entry is not None:
                for index in (event.entry, event.entry + 1):
                    found.setdefault(index, []).append(event)
        return found
