"""The live counts of an experiment: one tally over every arm for the progress bar, with each arm's pass^1
so far rather than one rate that mixes the arms."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.runner import Tally
from tau2.runs import SimulationRecord


class ArmsTally(Tally):
    """A run's tally over every arm's records, beside one tally per arm."""

    def __init__(self, total: int, arms: Sequence[tuple[str, Sequence[SimulationRecord]]]) -> None:
        """`arms`: each arm's name and the records its store already holds, in the order the line shows
        the arms."""
        self._arms = [(name, Tally(0, records)) for name, records in arms]
        super().__init__(total, [record for _, records in arms for record in records])

    def arm_finished(self, arm: int, record: SimulationRecord) -> None:
        """A simulation of arm `arm` (its index) ended with `record`, already counted here."""
        self._arms[arm][1].add(record, usage=False)

    def stats_text(self) -> str:
        """One line of the live counts, pass^1 per arm."""
        rates = ", ".join(
            f"{name} {'–' if tally.pass_1 is None else f'{tally.pass_1:.3f}'}" for name, tally in self._arms
        )
        return (
            f"{self.done}/{self.total} done · {self.running} running · {self.infra_errors} infra errors · "
            f"pass^1 {rates} · {self.cost_text()}"
        )
