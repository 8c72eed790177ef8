"""The cost–accuracy frontier on a page: one point per run (a comparison's two, an experiment's arms), pass^1
against the cost per simulation, each with its interval as whiskers, the Pareto frontier joined by a line;
and the same points as a table. Drawn as inline SVG by this module's own few lines rather than by matplotlib,
so every page shows it whether or not the optional `plots` extra is installed (a scatter with whiskers
needs nothing more); text stays text and the markup is deterministic."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from math import ceil, floor, log10
from typing import Final

from tau2.metrics import FrontierPoint
from tau2.report import fmt
from tau2.report.cost import money
from tau2.report.tables import TableData

WIDTH: Final = 640
HEIGHT: Final = 390
LEFT, RIGHT, TOP, BOTTOM = 72, 28, 68, 52
"""The plot area's margins, in pixels: room for the title and the legend above it, the tick labels and
the axis titles."""
TICKS: Final = 4
"""Ticks of pass^1 (0, 0.25, …, 1), and about as many of cost, at a round step."""
LABEL_CHARS: Final = 48
"""Longer run names are drawn shortened; the table beside the plot holds them whole."""
ON: Final = "#4e79a7"
OFF: Final = "#76717a"


def paid(points: Sequence[FrontierPoint]) -> bool:
    """Whether some run paid for model calls: runs of offline actors all cost nothing, and a frontier
    of points at $0 says nothing."""
    return any(point.cost_per_simulation not in (0.0, "undefined") for point in points)


def frontier_table(points: Sequence[FrontierPoint], level: float, what: str = "run") -> TableData:
    """Each run's (`what`: or arm's) pass^1 and cost per simulation with their intervals, and whether it is
    on the frontier."""
    rows = [
        [
            point.name,
            fmt.rate(point.pass_1.value),
            fmt.interval(point.pass_1.ci_low, point.pass_1.ci_high),
            money(point.cost_per_simulation),
            _usd_interval(point.cost_per_simulation_ci),
            fmt.count(point.tasks),
            "yes" if point.on_frontier else "no",
        ]
        for point in points
    ]
    columns = [what, "pass^1", f"{level:.0%} CI", "cost per simulation", f"{level:.0%} CI", "tasks"]
    return TableData("Cost and accuracy", [*columns, "on the frontier"], rows)


def frontier_figure(points: Sequence[FrontierPoint], title: str, level: float) -> str:
    """The points as an inline SVG figure; empty when no point can be placed (all unpriced, or no pass^1),
    with a note naming the points left out."""
    placed = [p for p in points if not isinstance(p.cost_per_simulation, str) and p.pass_1.value is not None]
    if not placed:
        return ""
    plane = _Plane(max(_x_values(placed)))
    parts = [_axes(plane, level)]
    frontier = sorted((p for p in placed if p.on_frontier), key=lambda p: _cost(p))
    if len(frontier) > 1:
        line = " ".join(f"{plane.x(_cost(p)):.1f},{plane.y(_accuracy(p)):.1f}" for p in frontier)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{ON}" stroke-width="1.5"/>')
    parts += [_point(plane, point) for point in placed]
    parts.append(_legend())
    left_out = [p.name for p in points if p not in placed]
    note = (
        f'<figcaption class="note">Not drawn (cost unpriced, or no valid trial): '
        f"{escape(', '.join(left_out))}</figcaption>"
        if left_out
        else ""
    )
    label = escape(fmt.shortened(title, 120))
    return (
        f'<figure class="plot" aria-label="{label}">'
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" font-family="sans-serif" font-size="11">'
        f"<title>{label}</title>"
        f'<text x="{LEFT}" y="18" font-size="13" font-weight="bold">{label}</text>'
        f"{''.join(parts)}</svg>{note}</figure>"
    )


class _Plane:
    """Data coordinates to pixels: cost from 0 to a round amount past `highest` left to right (in steps of
    1, 2, 2.5 or 5 times a power of ten), pass^1 from 0 to 1 upwards."""

    def __init__(self, highest: float) -> None:
        raw = (highest or 0.0001) / TICKS
        magnitude = 10.0 ** floor(log10(raw))
        self.step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
        self.steps = max(1, ceil(highest / self.step - 1e-9))
        self.reach = self.step * self.steps

    def x(self, cost: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * cost / self.reach

    def y(self, accuracy: float) -> float:
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * accuracy


def _axes(plane: _Plane, level: float) -> str:
    """Both axes with their ticks, grid lines and titles."""
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    parts = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>',
    ]
    decimals = max(0, -floor(log10(plane.step)) + 1)
    for step in range(plane.steps + 1):
        x = plane.x(plane.step * step)
        amount = f"{plane.step * step:,.{decimals}f}".rstrip("0").rstrip(".")
        parts += [
            f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" stroke="#333"/>',
            f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">${amount}</text>',
        ]
    for step in range(TICKS + 1):
        y = plane.y(step / TICKS)
        parts += [
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e4e4e4"/>',
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{step / TICKS:.2f}</text>',
        ]
    parts += [
        f'<text x="{(LEFT + right) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">'
        f"cost per simulation (USD; whiskers: {level:.0%} intervals)</text>",
        f'<text x="16" y="{(TOP + bottom) / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(TOP + bottom) / 2:.1f})">pass^1</text>',
    ]
    return "".join(parts)


def _point(plane: _Plane, point: FrontierPoint) -> str:
    """One run: its whiskers (pass^1 up and down, cost left and right), its marker and its name."""
    x, y = plane.x(_cost(point)), plane.y(_accuracy(point))
    color = ON if point.on_frontier else OFF
    parts = []
    low, high = point.pass_1.ci_low, point.pass_1.ci_high
    if low is not None and high is not None:
        parts.append(_whisker((x, plane.y(high)), (x, plane.y(low)), color, vertical=True))
    if point.cost_per_simulation_ci is not None:
        left, right = point.cost_per_simulation_ci
        parts.append(_whisker((plane.x(left), y), (plane.x(right), y), color, vertical=False))
    fill = color if point.on_frontier else "#ffffff"
    parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="{color}" stroke-width="2"/>')
    name = escape(fmt.shortened(point.name, LABEL_CHARS))
    far_right = x > LEFT + 0.6 * (WIDTH - LEFT - RIGHT)
    anchor, dx = ("end", -8) if far_right else ("start", 8)
    halo = 'paint-order="stroke" stroke="#ffffff" stroke-width="3"'
    parts.append(f'<text x="{x + dx:.1f}" y="{y - 8:.1f}" text-anchor="{anchor}" {halo}>{name}</text>')
    return "".join(parts)


def _whisker(start: tuple[float, float], end: tuple[float, float], color: str, *, vertical: bool) -> str:
    """An interval's line from `start` to `end`, with a short cap across each end."""
    lines = [(*start, *end)]
    for x, y in (start, end):
        lines.append((x - 3, y, x + 3, y) if vertical else (x, y - 3, x, y + 3))
    return "".join(
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" stroke-width="1"/>'
        for x1, y1, x2, y2 in lines
    )


def _legend() -> str:
    x, y = LEFT + 6, 40
    return (
        f'<circle cx="{x}" cy="{y - 4}" r="5" fill="{ON}" stroke="{ON}" stroke-width="2"/>'
        f'<text x="{x + 9}" y="{y}">on the Pareto frontier</text>'
        f'<circle cx="{x + 150}" cy="{y - 4}" r="5" fill="#ffffff" stroke="{OFF}" stroke-width="2"/>'
        f'<text x="{x + 159}" y="{y}">off it (another is as cheap and as accurate)</text>'
    )


def _x_values(points: Sequence[FrontierPoint]) -> list[float]:
    """Every cost a point or its interval reaches."""
    values = [_cost(point) for point in points]
    values += [high for point in points if (ci := point.cost_per_simulation_ci) is not None for high in ci]
    return values


def _cost(point: FrontierPoint) -> float:
    value = point.cost_per_simulation
    assert not isinstance(value, str), "only placed points are drawn"
    return value


def _accuracy(point: FrontierPoint) -> float:
    value = point.pass_1.value
    assert value is not None, "only placed points are drawn"
    return value


def _usd_interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f"[{money(ci[0])}, {money(ci[1])}]"
