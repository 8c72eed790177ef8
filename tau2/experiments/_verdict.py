"""An arm against its baseline in figures and in one sentence: Δpass^1 with its paired interval, the exact
McNemar test, the minimum detectable difference, and a verdict worded the same way every time."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.experiments._detectable import DEFAULT_POWER, minimum_detectable_difference
from tau2.metrics import McNemar
from tau2.metrics.bootstrap import Bootstrap
from tau2.metrics.paired_stats import paired_pass_hat_k
from tau2.metrics.passk import TaskCounts

MINUS = "\N{MINUS SIGN}"


class ArmComparison(BaseModel):
    """One arm against the baseline over the tasks both have valid trials of: B − A is arm − baseline."""

    model_config = ConfigDict(frozen=True)

    arm: str
    baseline: str
    tasks: int
    delta_pass_hat_1: float | None
    ci: tuple[float, float] | None
    """The paired bootstrap interval of `delta_pass_hat_1` at `level`."""
    level: float
    p_value: float
    """Exact McNemar test on the (task, trial) units with an outcome in both arms."""
    mdd: float | None
    """Minimum detectable difference of pass^1 at `level` and `power`."""
    power: float
    flips_to_pass: int
    flips_to_fail: int
    incomplete: int
    """(task, trial) units missing in either arm, left out of the test."""
    p_holm: float | None = None
    """`p_value` Holm-corrected over the `family` arms tested against the same baseline (`holm`); None
    when the comparison was made alone."""
    family: int = 1
    """How many arms were tested against the baseline together."""

    @property
    def alpha(self) -> float:
        """The significance level matching the intervals' level (0.05 at 95 %)."""
        return round(1.0 - self.level, 12)

    def worse_by_more_than(self, margin: float) -> bool:
        """Whether the arm is significantly worse than the baseline by more than `margin` pass^1: its
        Holm-corrected McNemar p-value (the plain one when compared alone) is at most `alpha` and its
        Δpass^1 is below −`margin`."""
        p = self.p_value if self.p_holm is None else self.p_holm
        delta = self.delta_pass_hat_1
        return delta is not None and p <= self.alpha and delta < -margin

    @computed_field  # type: ignore[prop-decorator]
    @property
    def detected(self) -> bool:
        """Whether the interval excludes zero: the verdict then states the difference."""
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> str:
        """The comparison in one sentence (`verdict_sentence`)."""
        return verdict_sentence(self)


def compare_arms(
    arm: str,
    baseline: str,
    *,
    arm_counts: TaskCounts,
    baseline_counts: TaskCounts,
    units: McNemar,
    bootstrap: Bootstrap,
    power: float = DEFAULT_POWER,
) -> ArmComparison:
    """Compare `arm` with `baseline` from their per-task counts (entry i the same task in both) and the
    McNemar test of their paired units."""
    base, other = baseline_counts, arm_counts
    estimate = paired_pass_hat_k(base, other, 1, bootstrap)["1"]
    both = (base.trials > 0) & (other.trials > 0)
    differences = other.successes[both] / other.trials[both] - base.successes[both] / base.trials[both]
    mdd = minimum_detectable_difference(differences, bootstrap.level, power)
    ci = None
    if estimate.ci_low is not None and estimate.ci_high is not None:
        ci = (estimate.ci_low, estimate.ci_high)
    return ArmComparison(
        arm=arm,
        baseline=baseline,
        tasks=estimate.tasks,
        delta_pass_hat_1=estimate.diff,
        ci=ci,
        level=bootstrap.level,
        p_value=units.p_value,
        mdd=mdd,
        power=power,
        flips_to_pass=units.flips_to_pass,
        flips_to_fail=units.flips_to_fail,
        incomplete=units.incomplete,
    )


def verdict_sentence(comparison: ArmComparison) -> str:
    """The comparison in one sentence: the difference when its interval excludes zero, otherwise the
    smallest difference these trials could have found."""
    arm, baseline = comparison.arm, comparison.baseline
    delta, ci, mdd = comparison.delta_pass_hat_1, comparison.ci, comparison.mdd
    if delta is None or ci is None or mdd is None:
        return f"{arm} against {baseline}: no task has valid trials in both arms"
    interval = f"{comparison.level * 100:g} % CI {_number(ci[0])} to {_number(ci[1])}"
    figures = f"{interval}; {_p(comparison.p_value)}"
    corrected = comparison.p_holm
    if (
        comparison.detected
        and corrected is not None
        and comparison.family > 1
        and corrected > comparison.alpha
    ):
        return (
            f"{arm} against {baseline}: Δ {_number(delta)} pass^1 ({figures}) is not significant once "
            f"corrected for {comparison.family} arms (Holm {_p(corrected)})"
        )
    if comparison.detected:
        change = "gains" if delta > 0 else "loses"
        return f"{arm} {change} {_number(abs(delta))} pass^1 against {baseline} ({figures})"
    return (
        f"{arm} against {baseline}: no difference larger than {_number(mdd)} pass^1 is detectable with "
        f"these trials (Δ {_number(delta)}; {figures})"
    )


def _number(value: float) -> str:
    """Two decimals (three for a value that two would show as zero), with a true minus sign."""
    digits = 3 if 0 < abs(value) < 0.005 else 2
    text = f"{abs(value):.{digits}f}"
    return f"{MINUS}{text}" if value < 0 and float(text) else text


def _p(value: float) -> str:
    """A p-value as a reader expects it: `p < 0.001` below a thousandth, else two or three decimals."""
    if value < 0.001:
        return "p < 0.001"
    return f"p = {value:.3f}" if value < 0.01 else f"p = {value:.2f}"
