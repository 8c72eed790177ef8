"""The few lines `tau2 experiment run` prints when it ends: each arm's progress and pass^1, why the
experiment stopped, and where to go next."""

from __future__ import annotations

from tau2.experiments._manifest import ExperimentStop
from tau2.experiments._run import ExperimentResult
from tau2.llm import spent_text
from tau2.runner import Tally

_WHY = {
    ExperimentStop.COMPLETE: "every planned trial ran",
    ExperimentStop.TARGET: "every comparison reached the target half width",
    ExperimentStop.MAX_SIMULATIONS: "one more paired trial would pass max_simulations",
    ExperimentStop.MAX_COST: "one more simulation would likely pass the spend cap",
    ExperimentStop.INTERRUPTED: "interrupted",
}


def experiment_summary(result: ExperimentResult) -> str:
    """One line per arm (simulations judged, infrastructure errors, pass^1), then why the experiment
    stopped with its spend, and the commands that continue or report it."""
    config = result.manifest.config
    lines = [f"experiment {config.name}: {len(config.arms)} arms, baseline {config.baseline}"]
    for name, run in result.arms.items():
        manifest = run.manifest
        tally = Tally(len(manifest.task_ids) * manifest.trials)
        for record in run.records():
            tally.add(record)
        pass_1 = "–" if tally.pass_1 is None else f"{tally.pass_1:.3f}"
        lines.append(
            f"  {name}: {tally.done} judged, {tally.infra_errors} infrastructure errors, pass^1 {pass_1}, "
            f"cost {tally.cost_text()}"
        )
    status = result.status
    if status is not None:
        cost = spent_text(status.cost_usd, bool(status.unpriced))
        lines.append(f"stopped: {_WHY[status.stopped]} ({status.simulations} simulations, {cost})")
        if status.stopped in (ExperimentStop.MAX_COST, ExperimentStop.INTERRUPTED):
            lines.append(f"`tau2 experiment run EXPERIMENT_FILE --resume --out {result.path}` continues it")
    lines.append(f"report: `tau2 experiment report {result.path}`")
    return "\n".join(lines)
