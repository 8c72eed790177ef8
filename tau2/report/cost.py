"""Cost per success in reports: the run's cost per simulation and per success in one line and, in full,
per seat and judge; what not asking the judges saved; and the runs' points on the cost–accuracy frontier
of a comparison or an experiment (rendered by the terminal and the HTML page)."""

from __future__ import annotations

from collections.abc import Sequence
from math import floor, log10

from tau2.metrics import (
    Bootstrap,
    CostPer,
    CostSummary,
    CostTally,
    Estimate,
    FrontierPoint,
    Pair,
    PairedEstimate,
    frontier_point,
    pareto_frontier,
)
from tau2.report import fmt
from tau2.report.tables import TableData


def money(value: CostPer) -> str:
    """USD to three significant digits (at least four decimals: a cheap run's cost per simulation can be
    a few millionths of a dollar), or the word that says why there is no amount (`unpriced`,
    `undefined`)."""
    if isinstance(value, str):
        return value
    decimals = 4 if value == 0 or abs(value) >= 0.01 else 2 - floor(log10(abs(value)))
    return f"${value:,.{decimals}f}"


def spent(summary: CostSummary | None) -> bool:
    """Whether the run paid for any model call (an offline run's cost lines would only say $0)."""
    return summary is not None and summary.total != 0.0


def cost_line(summary: CostSummary | None, level: float) -> str | None:
    """`cost per simulation $x [low, high] · per success $y (n successes)`; None when nothing was paid."""
    if summary is None or not spent(summary):
        return None
    ci = summary.cost_per_simulation_ci
    interval = "" if ci is None else f" [{money(ci[0])}, {money(ci[1])}] ({level:.0%})"
    success = money(summary.cost_per_success)
    if summary.cost_per_success == "undefined":
        success = "undefined (no simulation succeeded)"
    return (
        f"cost per simulation {money(summary.cost_per_simulation)}{interval}{fmt.SEPARATOR}"
        f"per success {success} ({fmt.count(summary.successes)} of {fmt.count(summary.simulations)} "
        "simulations succeeded)"
    )


def saving_line(summary: CostSummary | None) -> str | None:
    """How many simulations the judges were not needed for, the calls not made and the money saved; None
    when the judges were needed every time (or there were none)."""
    saving = None if summary is None else summary.judge_saving
    if saving is None or not saving.not_needed:
        return None
    estimate = saving.estimated_usd
    if isinstance(estimate, float):
        basis = f"the judges' mean cost over {fmt.count(saving.judged)} judged simulations"
        money_saved = f"about {money(estimate)} saved (at {basis})"
    elif estimate == "undefined":
        money_saved = "the money saved cannot be estimated (no simulation was judged)"
    else:
        money_saved = f"money saved {estimate} (a judge has no price)"
    calls = fmt.count(saving.calls_not_made)
    return (
        f"judge not needed in {fmt.count(saving.not_needed)} simulations (a deterministic part had already "
        f"failed): {calls} call{'' if saving.calls_not_made == 1 else 's'} not made, {money_saved}"
    )


def cost_table(summary: CostSummary | None) -> TableData:
    """Per seat and judge that cost something, and in all: the cost, per simulation and per success; empty
    when nothing was paid."""
    title = "Cost per simulation and per success"
    columns = ["seat", "cost", "per simulation", "per success"]
    if summary is None or not spent(summary):
        return TableData(title, columns, [])
    rows = [
        [seat.seat, money(seat.total), money(seat.cost_per_simulation), money(seat.cost_per_success)]
        for seat in summary.seats
        if seat.total != 0.0
    ]
    rows.append(
        [
            "all",
            money(summary.total),
            money(summary.cost_per_simulation),
            money(summary.cost_per_success),
        ]
    )
    return TableData(title, columns, rows)


def paired_frontier(
    first: PairedEstimate | None,
    pairs: Sequence[Pair],
    costs: tuple[CostTally, CostTally],
    names: tuple[str, str],
    run_ids: tuple[str, str],
    bootstrap: Bootstrap,
) -> list[FrontierPoint]:
    """Runs A and B on the cost–accuracy plane over their shared tasks: each one's pass^1 (with its own
    interval) and cost per simulation on the paired tasks; empty without a pass^1."""
    if first is None:
        return []
    passes = (
        Estimate(value=first.a, ci_low=first.a_low, ci_high=first.a_high, tasks=first.tasks),
        Estimate(value=first.b, ci_low=first.b_low, ci_high=first.b_high, tasks=first.tasks),
    )
    tasks = ({pair.a.task_id for pair in pairs}, {pair.b.task_id for pair in pairs})
    return pareto_frontier(
        [
            frontier_point(f"{side}: {name}", run_id, accuracy, tally.per_simulation(bootstrap, shared))
            for side, name, run_id, accuracy, tally, shared in zip(
                "AB", names, run_ids, passes, costs, tasks, strict=True
            )
        ]
    )
