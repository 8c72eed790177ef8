"""The experiment statistic extension point: a figure computed for every arm against the baseline from their
paired (task, trial) units (`ExperimentStatistic`), and the registry that finds the built-in statistics and
those registered in code, declared or installed (entry points `experiment_statistic.NAME` of the
`tau2.plugins` group). `tau2 experiment report` shows each one beside the fixed figures (Δpass^1, McNemar,
Holm, MDD), on the terminal, in `--json` and on the page."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from tau2._registry import Registry, named_registry
from tau2.errors import UserInputError


class PairedUnit(NamedTuple):
    """One (task, trial) of an arm against the baseline: its outcome in each (None: missing there, never run
    or an infrastructure error)."""

    task_id: str
    trial: int
    baseline: bool | None
    arm: bool | None


class ExperimentStatistic(BaseModel):
    """A statistic of an arm against the baseline: `compute` maps the paired units (every unit either arm
    recorded, in no particular order) to a number, or None when the units cannot give one. It is
    deterministic, offline and independent of the units' order; `check_experiment_statistic` tries it."""

    model_config = ConfigDict(frozen=True)

    name: str
    label: str
    """Its column heading in the report ("odds ratio")."""
    description: str
    """What it measures, in a sentence."""
    compute: Callable[[Sequence[PairedUnit]], float | None] = Field(exclude=True)


class StatisticValue(BaseModel):
    """One statistic's value for one comparison, with what the report needs to show it."""

    model_config = ConfigDict(frozen=True)

    name: str
    label: str
    value: float | None


_STATISTICS: Registry[ExperimentStatistic] = named_registry(
    ExperimentStatistic, "experiment statistic", "experiment_statistic", "statistics"
)


def register_experiment_statistic(statistic: ExperimentStatistic) -> ExperimentStatistic:
    """Make `statistic` part of every experiment report of this process; a later registration of the same
    name replaces it."""
    return _STATISTICS.register(statistic.name, statistic)


def _odds_ratio(units: Sequence[PairedUnit]) -> float | None:
    to_pass = sum(1 for unit in units if unit.baseline is False and unit.arm is True)
    to_fail = sum(1 for unit in units if unit.baseline is True and unit.arm is False)
    return to_pass / to_fail if to_fail else None


BUILT_IN_STATISTICS: tuple[ExperimentStatistic, ...] = (
    ExperimentStatistic(
        name="odds_ratio",
        label="odds ratio",
        description="McNemar's conditional odds ratio: the units that flip to pass in the arm per unit that "
        "flips to fail (None when none flips to fail); above 1 the arm gains.",
        compute=_odds_ratio,
    ),
)
"""The statistics tau2 ships, in the order they are shown."""
for _statistic in BUILT_IN_STATISTICS:
    register_experiment_statistic(_statistic)


def experiment_statistics() -> list[ExperimentStatistic]:
    """Every statistic an experiment report shows: the built-ins in their order, then the others registered,
    declared or installed, by name. One that fails to load is one `UserInputError` line."""
    rank = {statistic.name: number for number, statistic in enumerate(BUILT_IN_STATISTICS)}
    return sorted(
        _STATISTICS.all(), key=lambda statistic: (rank.get(statistic.name, len(rank)), statistic.name)
    )


def statistic_values(units: Sequence[PairedUnit]) -> list[StatisticValue]:
    """Every statistic of `experiment_statistics()` on the paired units of one comparison. One that raises or
    answers other than a finite number or None is one `UserInputError` line naming it."""
    values = []
    for statistic in experiment_statistics():
        try:
            value = statistic.compute(units)
        except Exception as error:  # a broken plugin must not take the report down with a traceback
            raise UserInputError(
                f"experiment statistic {statistic.name!r} failed: {type(error).__name__}: {error}"
            ) from None
        problem = _value_problem(value)
        if problem is not None:
            raise UserInputError(f"experiment statistic {statistic.name!r} {problem}")
        values.append(StatisticValue(name=statistic.name, label=statistic.label, value=value))
    return values


def _value_problem(value: object) -> str | None:
    """What is wrong with a statistic's value: neither None nor a finite number."""
    if value is None or (
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ):
        return None
    return f"answered {value!r}: a statistic answers a finite number or None"


def _cases() -> dict[str, list[PairedUnit]]:
    """Paired units of the shapes experiments produce: none, agreement, flips each way, missing outcomes."""
    mixed = [
        PairedUnit(f"task-{task}", trial, baseline, arm)
        for task, (baseline, arm) in enumerate(
            [
                (True, True),
                (False, True),
                (True, False),
                (False, False),
                (None, True),
                (True, None),
                (False, True),
            ]
        )
        for trial in range(3)
    ]
    return {
        "no units": [],
        "every unit agrees": [PairedUnit(f"t{n}", 0, n % 2 == 0, n % 2 == 0) for n in range(6)],
        "every unit flips to pass": [PairedUnit(f"t{n}", 0, False, True) for n in range(6)],
        "every unit flips to fail": [PairedUnit(f"t{n}", 0, True, False) for n in range(6)],
        "every unit is missing in one arm": [PairedUnit(f"t{n}", 0, None, n % 2 == 0) for n in range(6)],
        "a mixed experiment": mixed,
    }


def _same(value: float | None, again: float | None) -> bool:
    """Whether two answers agree, up to the rounding of summing in another order."""
    if value is None or again is None:
        return value is again
    return math.isclose(value, again, rel_tol=1e-9, abs_tol=1e-12)


def check_experiment_statistic(
    statistic: ExperimentStatistic, units: Sequence[Sequence[PairedUnit]] | None = None
) -> list[str]:
    """Problems of a statistic, one line each; empty when it keeps its contract (a finite number or None,
    the same, up to rounding, when asked again with the units in another order; its inputs unchanged) on
    each set of paired units: `units`, or by default the shapes experiments produce (none, agreement, flips
    each way, missing outcomes, a mix)."""
    cases = _cases() if units is None else {f"units {n}": list(given) for n, given in enumerate(units)}
    problems = []
    for case, given in cases.items():
        kept = list(given)
        try:
            value = statistic.compute(given)
            again = statistic.compute(list(reversed(kept)))
        except Exception as error:  # the check reports, it never raises
            problems.append(f"{statistic.name!r} on {case}: raised {type(error).__name__}: {error}")
            continue
        problem = _value_problem(value)
        if problem is None and list(given) != kept:
            problem = "changed the units it was given"
        if problem is None and not _same(value, again):
            problem = f"answered {value!r}, then {again!r} for the same units in another order"
        if problem is not None:
            problems.append(f"{statistic.name!r} on {case}: {problem}")
    return problems
