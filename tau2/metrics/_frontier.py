"""The cost–accuracy frontier of several runs (a comparison's two, an experiment's arms): each run a point,
pass^1 with its interval against the cost per simulation with its interval, and the points no other point
beats on both (as cheap or cheaper and at least as accurate, better on one) marked as the Pareto frontier.
A run whose cost is unknown (unpriced) or with no valid trial is listed but never on the frontier."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tau2.metrics._cost import CostPer, CostPerSimulation
from tau2.metrics.bootstrap import Estimate


class FrontierPoint(BaseModel):
    """One run on the cost–accuracy plane."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The run's name in its report (`A`/`B` with what differs, or the arm's name)."""
    run_id: str
    pass_1: Estimate
    cost_per_simulation: CostPer
    cost_per_simulation_ci: tuple[float, float] | None
    tasks: int
    """The tasks both figures are over."""
    on_frontier: bool = False


def frontier_point(name: str, run_id: str, pass_1: Estimate, cost: CostPerSimulation) -> FrontierPoint:
    """The point of a run from its pass^1 and its cost per simulation over the same tasks."""
    return FrontierPoint(
        name=name,
        run_id=run_id,
        pass_1=pass_1,
        cost_per_simulation=cost.value,
        cost_per_simulation_ci=cost.ci,
        tasks=cost.tasks,
    )


def pareto_frontier(points: Sequence[FrontierPoint]) -> list[FrontierPoint]:
    """`points` in the same order, each marked whether it is on the Pareto frontier: placed (priced, with a
    pass^1) and beaten by no other placed point on both cost and pass^1."""
    placed = [_place(point) for point in points]
    return [
        point.model_copy(
            update={
                "on_frontier": here is not None
                and not any(other is not None and _beats(other, here) for other in placed)
            }
        )
        for point, here in zip(points, placed, strict=True)
    ]


def _place(point: FrontierPoint) -> tuple[float, float] | None:
    """(cost, pass^1) of a point that can be drawn; None when either is unknown."""
    cost, accuracy = point.cost_per_simulation, point.pass_1.value
    if isinstance(cost, str) or accuracy is None:
        return None
    return cost, accuracy


def _beats(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether `a` is as cheap and as accurate as `b`, and strictly better in one."""
    return a[0] <= b[0] and a[1] >= b[1] and a != b
