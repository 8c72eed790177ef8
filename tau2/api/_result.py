"""What a run leaves behind, read back from its directory: the manifest, the records and the report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tau2.config import RunConfig
from tau2.errors import UserInputError
from tau2.metrics import Bootstrap, Estimate
from tau2.report import RunReport, read_report
from tau2.runner import RunTotals, stored_totals
from tau2.runs import RunManifest, SimulationRecord, load_manifest, load_run


class RunResult:
    """A run directory's results. It holds the manifest; records are read from the store when asked for,
    so a result costs nothing until then and always reflects what the store holds."""

    def __init__(
        self,
        path: Path,
        manifest: RunManifest,
        warnings: list[str] | None = None,
        totals: RunTotals | None = None,
    ) -> None:
        self.path = path
        """The run directory."""
        self.manifest = manifest
        """The run's saved configuration and its provenance."""
        self.warnings = list(warnings or [])
        """What the run warned about before it started (ignored settings, damaged lines set aside)."""
        self._totals = totals

    @property
    def totals(self) -> RunTotals:
        """What `tau2 run`'s summary shows: counted as the records were written by the run that returned
        this result, else read from the store (one record at a time) when first asked for."""
        if self._totals is None:
            self._totals = stored_totals(self.manifest, self.path)
        return self._totals

    @property
    def config(self) -> RunConfig:
        """The run's configuration as it ran (paths absolute, transports resolved)."""
        return self.manifest.config

    def records(self) -> Iterator[SimulationRecord]:
        """The run's effective records (the last of each task and trial), read from the store now, one at
        a time: only the record in hand is held, and those a later line replaces are skipped."""
        yield from load_run(self.path).records

    def report(self, bootstrap: Bootstrap | None = None) -> RunReport:
        """Everything `tau2 report --json` shows: pass^k with intervals, breakdowns, usage, …"""
        return read_report(self.path, bootstrap or Bootstrap())[1]

    def pass_hat_k(self, bootstrap: Bootstrap | None = None) -> dict[int, Estimate]:
        """pass^k for k = 1 … trials, each with its bootstrap interval (from `report`)."""
        return {int(k): estimate for k, estimate in self.report(bootstrap).pass_hat_k.items()}

    def __repr__(self) -> str:
        return f"RunResult({str(self.path)!r}, run_id={self.manifest.run_id!r})"


def load_run_result(path: str | Path) -> RunResult:
    """The results of the run directory at `path` (a `UserInputError` when it holds no run)."""
    path = Path(path)
    if not path.is_dir():
        raise UserInputError(f"{path}: not a run directory")
    return RunResult(path, load_manifest(path))
