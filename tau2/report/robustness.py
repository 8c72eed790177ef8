"""The robustness profile: for each perturbed run or experiment arm, what each perturbation did, its pass^k,
Δpass^1 against the unperturbed arm of the same experiment with its paired interval (and the McNemar test
in an experiment's report), and the simulations in which the agent noticed."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.metrics import (
    Bootstrap,
    Estimate,
    OutcomeTally,
    PairBy,
    PerturbationSummary,
    mcnemar,
    pair_outcomes,
    paired_curve,
)
from tau2.report import fmt
from tau2.report.schema import RobustnessProfile
from tau2.report.tables import TableData
from tau2.runs import EXPERIMENT_FILE, Run, arm_run_dir, load_experiment, load_run, record_heads

NOTICED_LISTED = 5
"""Noticed simulations named per perturbation on the terminal (all of them are in --json)."""
SHORT_ID = 40
"""Characters of a task id shown in a terminal's list of noticed simulations."""


def run_profile(
    run: Run, perturbations: list[PerturbationSummary], pass_hat_k: dict[str, Estimate], bootstrap: Bootstrap
) -> RobustnessProfile | None:
    """The profile of a run under perturbations (None for an unperturbed run): when the run is an arm of an
    experiment that has an unperturbed arm (its baseline when that is one), Δpass^1 and the McNemar test
    against that arm on the paired (task, trial) units."""
    if not perturbations:
        return None
    unperturbed = _unperturbed_arm(run)
    if unperturbed is None:
        return RobustnessProfile(perturbations=perturbations, pass_hat_k=pass_hat_k)
    name, other = unperturbed
    ends_a, tally_a = _units(other)
    ends_b, tally_b = _units(run)
    pairs = pair_outcomes(tally_a.outcomes(), tally_b.outcomes(), PairBy.TASK)
    units = sorted(ends_a.keys() & ends_b.keys())
    return RobustnessProfile(
        arm=run.path.name,
        perturbations=perturbations,
        pass_hat_k=pass_hat_k,
        against=name,
        delta_pass_hat_1=paired_curve(pairs, 1, bootstrap)["1"],
        p_value=mcnemar((ends_a[unit], ends_b[unit]) for unit in units).p_value,
    )


def _unperturbed_arm(run: Run) -> tuple[str, Run] | None:
    """The arm without perturbations of the experiment `run` is an arm of (the baseline first), or None."""
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


def _units(run: Run) -> tuple[dict[tuple[str, int], bool], OutcomeTally]:
    """Each valid (task, trial)'s outcome, and the per-task tally, read one record head at a time."""
    ends: dict[tuple[str, int], bool] = {}
    tally = OutcomeTally()
    for head in record_heads(run.records):
        tally.add(head)
        if not head.excluded:
            ends[head.task_id, head.trial] = head.success
    return ends, tally


def robustness_table(profiles: Sequence[RobustnessProfile], level: float) -> TableData:
    """One row per perturbation of each profile: the unperturbed arm it is measured against, what it did,
    pass^1, and Δpass^1 against that arm with its interval and p-value."""
    rows = []
    for profile in profiles:
        delta = profile.delta_pass_hat_1
        pass_1 = profile.pass_hat_k.get("1")
        for summary in profile.perturbations:
            rows.append(
                [
                    profile.arm or "this run",
                    summary.kind,
                    profile.against or "–",
                    _settings(summary),
                    _events(summary),
                    f"{summary.perturbed}/{summary.simulations}",
                    fmt.count(summary.noticed),
                    fmt.rate(None if pass_1 is None else pass_1.value),
                    "–" if delta is None else fmt.signed(delta.diff),
                    "–" if delta is None else fmt.interval(delta.ci_low, delta.ci_high, True),
                    "–" if profile.p_value is None else f"{profile.p_value:.2g}",
                ]
            )
    columns = ["arm", "perturbation", "against", "settings", "events", "perturbed", "noticed", "pass^1"]
    return TableData(
        "Robustness profile", [*columns, "Δpass^1", f"{level:.0%} CI", "p"], rows, text_columns=5
    )


def noticed_lines(profiles: Sequence[RobustnessProfile], limit: int | None = NOTICED_LISTED) -> list[str]:
    """Per perturbation, the simulations in which the agent noticed, as `task#trial` (the first `limit`,
    their ids shortened; every one with `limit` None)."""
    lines = []
    for profile in profiles:
        for summary in profile.perturbations:
            if not summary.noticed_units:
                continue
            shown = summary.noticed_units if limit is None else summary.noticed_units[:limit]
            more = len(summary.noticed_units) - len(shown)
            short = (lambda task: task) if limit is None else (lambda task: fmt.shortened(task, SHORT_ID))
            units = ", ".join(f"{short(task)}#{trial}" for task, trial in shown)
            where = f"{profile.arm}, " if profile.arm and profile.arm != summary.kind else ""
            lines.append(
                f"{where}{summary.kind}: the agent noticed in {summary.noticed} simulations: {units}"
                + (f" (+{more} more; --json lists them all)" if more else "")
            )
    return lines


def _settings(summary: PerturbationSummary) -> str:
    """Every setting given a value, briefly (`kinds=read|write`)."""
    return ", ".join(
        f"{key}={'|'.join(map(str, value)) if isinstance(value, list) else value}"
        for key, value in summary.settings.items()
        if value is not None
    )


def _events(summary: PerturbationSummary) -> str:
    parts = [f"{count} {effect}" for effect, count in summary.events.items()]
    if summary.repeats:
        parts.append(f"{summary.repeats} repeated")
    return ", ".join(parts) or "none"
