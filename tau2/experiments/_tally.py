"""The live counts of an experiment: one tally over every arm for the progress bar, with each arm's pass^1
so far rather than one rate that mixes the arms."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tau2.runner import Tally
from tau2.runs import SimulationRecord


class ArmsTally(Tally):
    """A run's tally over every arm's records; each record tells its arm by its run id."""

    def __init__(self, total: int, previous: Iterable[SimulationRecord], arms: Mapping[str, str]) -> None:
        """`arms` maps each arm's run id to the arm's name, in the order the line shows them."""
        self._arms = {run_id: (name, Tally(0)) for run_id, name in arms.items()}
        super().__init__(total, previous)

    def add(self, record: SimulationRecord, *, usage: bool = True) -> None:
        """Count one record, and towards its arm's pass^1."""
        super().add(record, usage=usage)
        arm = self._arms.get(record.run_id or "")
        if arm is not None:
            arm[1].add(record, usage=False)

    def stats_text(self) -> str:
        """One line of the live counts, pass^1 per arm."""
        rates = ", ".join(
            f"{name} {'–' if tally.pass_1 is None else f'{tally.pass_1:.3f}'}"
            for name, tally in self._arms.values()
        )
        return (
            f"{self.done}/{self.total} done · {self.running} running · {self.infra_errors} infra errors · "
            f"pass^1 {rates} · {self.cost_text()}"
        )
