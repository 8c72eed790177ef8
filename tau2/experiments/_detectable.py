"""The minimum detectable difference: the smallest true difference in pass^1 that an experiment of this size
finds (its interval excludes zero) with the given power, from the spread of the per-task differences."""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt
from statistics import NormalDist

import numpy as np

from tau2.metrics.bootstrap import Floats

DEFAULT_POWER = 0.8
"""The conventional power: a difference of the MDD is found four times out of five."""


def minimum_detectable_difference(
    differences: Sequence[float] | Floats, level: float = 0.95, power: float = DEFAULT_POWER
) -> float | None:
    """MDD of the mean of per-task differences (arm − baseline pass^1, one per task): with c the sum of the
    normal quantiles of the level's two-sided test and of the power, and s the differences' standard
    deviation over T tasks, c·s/√T; but never below c²/(T + c²), the shift at which a fraction of tasks
    that flip outright would be found, so agreeing arms do not read as able to detect any difference.
    None without tasks."""
    values = np.asarray(differences, dtype=np.float64)
    tasks = values.size
    if not tasks:
        return None
    if not 0.0 < level < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"level and power must lie strictly between 0 and 1: {level=}, {power=}")
    normal = NormalDist()
    c = normal.inv_cdf(0.5 + level / 2) + normal.inv_cdf(power)
    spread = float(values.std(ddof=1)) if tasks > 1 else 0.0
    return max(c * spread / sqrt(tasks), c * c / (tasks + c * c))
