"""What a run's perturbations did, folded over its records: per kind, the simulations it touched, its
events by effect (fresh draws; a persistent fault repeated is counted apart), and the simulations in which
the agent noticed — the counts a robustness profile shows beside pass^k and the paired Δ."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.perturbations import PerturbationSettings
from tau2.runs import RecordHead


class PerturbationSummary(BaseModel):
    """One perturbation kind over a run's valid simulations."""

    model_config = ConfigDict(frozen=True)

    kind: str
    settings: dict[str, Any]
    """The kind's settings as the run configured them."""
    simulations: int
    """The run's valid simulations (infrastructure failures aside)."""
    perturbed: int
    """Simulations in which the kind did something."""
    events: dict[str, int]
    """Effect → events (fresh draws only)."""
    repeats: int
    """Events that repeated an earlier one (a persistent fault on the same call again)."""
    noticed: int
    """Simulations in which the agent noticed the kind's events."""
    noticed_units: list[tuple[str, int]]
    """Those simulations' (task id, trial)."""


class RobustnessTally:
    """The perturbation kinds' events and noticing, folded one record at a time."""

    def __init__(self) -> None:
        self._valid = 0
        self._perturbed: Counter[str] = Counter()
        self._events: dict[str, Counter[str]] = {}
        self._repeats: Counter[str] = Counter()
        self._noticed: dict[str, list[tuple[str, int]]] = {}

    def add(self, record: RecordHead) -> None:
        """Fold in one record (infrastructure failures are left out, as from every metric)."""
        if record.excluded:
            return
        self._valid += 1
        if record.perturbation is None:
            return
        kinds = {event.kind for event in record.perturbation.events}
        self._perturbed.update(kinds)
        for event in record.perturbation.events:
            if event.repeat:
                self._repeats[event.kind] += 1
            else:
                self._events.setdefault(event.kind, Counter())[event.effect] += 1
        for kind in record.perturbation.noticed:
            self._noticed.setdefault(kind, []).append((record.task_id, record.trial))

    def summaries(self, configured: dict[str, PerturbationSettings]) -> list[PerturbationSummary]:
        """One summary per configured kind, in the configuration's order (a kind that never acted
        included, with zero counts)."""
        return [
            PerturbationSummary(
                kind=kind,
                settings=settings.model_dump(mode="json"),
                simulations=self._valid,
                perturbed=self._perturbed[kind],
                events=dict(sorted(self._events.get(kind, Counter()).items())),
                repeats=self._repeats[kind],
                noticed=len(self._noticed.get(kind, [])),
                noticed_units=sorted(self._noticed.get(kind, [])),
            )
            for kind, settings in configured.items()
        ]
