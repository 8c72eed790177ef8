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
from tau2.runs import Run, record_heads

NOTICED_LISTED = 5
"""Noticed simulations named per perturbation on the terminal (all of them are in --json)."""
SHORT_ID = 40
"""Characters of a task id shown in a terminal's list of noticed simulations."""


def run_profile(
    perturbations: list[PerturbationSummary], pass_hat_k: dict[str, Estimate]
) -> RobustnessProfile | None:
    """The profile of a run under perturbations (None for an unperturbed run), as the run alone shows it:
    what each perturbation did, pass^k, the simulations in which the agent noticed."""
    if not perturbations:
        return None
    return RobustnessProfile(perturbations=perturbations, pass_hat_k=pass_hat_k)


def profile_against(
    profile: RobustnessProfile, run: Run, name: str, unperturbed: Run, bootstrap: Bootstrap
) -> RobustnessProfile:
    """`profile` of `run` measured against the unperturbed run `unperturbed` (an arm called `name` of the
    same experiment): Δpass^1 and the McNemar test on the paired (task, trial) units."""
    ends_a, tally_a = _units(unperturbed)
    ends_b, tally_b = _units(run)
    pairs = pair_outcomes(tally_a.outcomes(), tally_b.outcomes(), PairBy.TASK)
    units = sorted(ends_a.keys() & ends_b.keys())
    return profile.model_copy(
        update={
            "arm": run.path.name,
            "against": name,
            "delta_pass_hat_1": paired_curve(pairs, 1, bootstrap)["1"],
            "p_value": mcnemar((ends_a[unit], ends_b[unit]) for unit in units).p_value,
        }
    )


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
