"""A perturbed arm's robustness measured against the unperturbed arm of its experiment, for the report of
that one arm (`tau2 report OUT/<arm>`): the experiment's manifest says which arms there are."""

from __future__ import annotations

from tau2.experiments._manifest import EXPERIMENT_FILE, arm_run_dir, load_experiment
from tau2.metrics import Bootstrap
from tau2.report import RunReport, profile_against
from tau2.runs import Run, load_run


def unperturbed_arm(run: Run) -> tuple[str, Run] | None:
    """The arm without perturbations of the experiment `run` is an arm of (the baseline first), or None
    when the run is no arm of an experiment or the experiment has no such arm."""
    directory = run.path.parent
    if not (directory / EXPERIMENT_FILE).is_file():
        return None
    config = load_experiment(directory).config
    if run.path.name not in {arm.name for arm in config.arms}:
        return None
    names = [config.baseline, *(arm.name for arm in config.arms if arm.name != config.baseline)]
    for name in names:
        path = arm_run_dir(directory, name)
        if name == run.path.name or not path.is_dir():
            continue
        other = load_run(path)
        if not other.manifest.config.perturbations:
            return name, other
    return None


def against_unperturbed_arm(run: Run, report: RunReport, bootstrap: Bootstrap) -> RunReport:
    """`report` of `run` with its robustness profile measured against the unperturbed arm of its
    experiment (Δpass^1 and the McNemar test); unchanged for an unperturbed run or one that is no arm."""
    if report.robustness is None:
        return report
    found = unperturbed_arm(run)
    if found is None:
        return report
    profile = profile_against(report.robustness, run, *found, bootstrap)
    return report.model_copy(update={"robustness": profile})
