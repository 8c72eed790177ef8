"""The few lines `tau2 run` prints when it ends: what ran, pass^1, usage, and where the results are."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tau2.runner._progress import Tally
from tau2.runs import RESULTS_FILE, RunManifest, SimulationRecord


def run_summary(manifest: RunManifest, records: Sequence[SimulationRecord], run_dir: Path) -> str:
    """A short summary of a run's effective records (the last per unit)."""
    tally = Tally(len(manifest.task_ids) * manifest.trials)
    for record in records:
        tally.add(record)
    user = f", user {manifest.user.label()}" if manifest.user is not None else ""
    pass_1 = "–" if tally.pass_1 is None else f"{tally.pass_1:.3f}"
    lines = [
        f"run {manifest.run_id}: {manifest.domain}, {manifest.mode_label()}, "
        f"agent {manifest.agent.label()}{user}, {len(manifest.task_ids)} tasks × {manifest.trials} trials",
        f"simulations: {tally.done}/{tally.total} judged, {tally.infra_errors} infrastructure errors, "
        f"{tally.total - tally.done - tally.infra_errors} not run",
        f"pass^1: {pass_1} · tokens {tally.tokens} · cost {tally.cost_text()}",
    ]
    failed = [record for record in records if record.excluded]
    if failed:
        lines.append(f"infrastructure errors: {most_common_failure(failed)}")
    if tally.done < tally.total:
        lines.append(f"incomplete: `tau2 run --resume --out {run_dir}` runs the missing simulations")
    lines.append(f"results: {run_dir / RESULTS_FILE} · report: `tau2 report {run_dir}`")
    return "\n".join(lines)


_FIGURES = re.compile(r"\d+(\.\d+)?")
"""Numbers in a failure's detail (attempts, seconds), which differ between otherwise equal failures."""


def nothing_judged(records: Sequence[SimulationRecord]) -> str | None:
    """When simulations ran but none was judged (all infrastructure errors): one line saying how many,
    with the most common failure; else None."""
    failed = [record for record in records if record.excluded]
    if not failed or len(failed) < len(records):
        return None
    return f"no simulation was judged: {len(failed)} infrastructure errors; {most_common_failure(failed)}"


def most_common_failure(failed: Sequence[SimulationRecord]) -> str:
    """`the most common (K of N): <detail>` over infrastructure-error records, counting details that
    differ only in their figures (attempts, seconds) as one."""
    details = Counter(_FIGURES.sub("N", record.termination_detail or "") for record in failed)
    common, count = details.most_common(1)[0]
    example = next(
        record.termination_detail or "no detail"
        for record in failed
        if _FIGURES.sub("N", record.termination_detail or "") == common
    )
    return f"the most common ({count} of {len(failed)}): {example}"
