"""Report plots drawn by matplotlib as inline SVG (text kept as text, no scripts, deterministic).

matplotlib is the optional `plots` extra: without it every plot is replaced by one line saying how to get
it, and the rest of the page works as before."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import wraps
from html import escape
from typing import TYPE_CHECKING, Any, Final, ParamSpec

from tau2._distribution import install_hint
from tau2.report.fmt import shortened
from tau2.world import Side

if TYPE_CHECKING:
    from matplotlib.axes import Axes

SEAT_COLORS: Final = {Side.AGENT.value: "#4e79a7", Side.USER.value: "#f28e2b", "both": "#76717a"}
SIDE_COLORS: Final = ("#4e79a7", "#e15759")
"""Run A and run B."""
PASS_FAIL: Final = ("#59a14f", "#e15759")
WIDTH_IN: Final = 5.2
ROW_IN: Final = 0.28
LABEL_CHARS: Final = 64
"""Longer labels (a bar's, a curve's, a legend entry's) are drawn shortened; the page's tables hold them
whole. Laying out a name of tens of thousands of characters takes matplotlib seconds."""
LABEL_ROOM_IN: Final = 3.5
"""How wide row labels may be, in inches, before the figure grows wider to keep room for the bars."""
TITLE_CHARS: Final = 120

_STYLE: Final[Any] = {
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
}


P = ParamSpec("P")


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """Run a drawing function under the report's matplotlib style, leaving global settings untouched."""

    @wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        from matplotlib import rc_context

        with rc_context(_STYLE):
            return draw(*args, **kwargs)

    return styled


@dataclass(frozen=True)
class Bar:
    """One labelled value with an optional interval, a colour key (seat or group) and a printed note."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    color: str = SEAT_COLORS["agent"]
    note: str = ""


@dataclass(frozen=True)
class Line:
    """One named curve over k with intervals."""

    name: str
    xs: Sequence[int]
    ys: Sequence[float | None]
    lows: Sequence[float | None]
    highs: Sequence[float | None]
    color: str


def available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


@_styled
def bars(
    title: str,
    items: Sequence[Bar],
    *,
    axis: str,
    centred: bool = False,
    usd: bool = False,
    legend: Sequence[tuple[str, str]] = (),
) -> str:
    """Horizontal bars on [0, 1] for rates, around zero and scaled to the data and its intervals for
    differences (`centred`), from zero in dollars (`usd`). Empty when there is nothing to draw: no value,
    or differences that are all exactly zero."""
    known = [bar for bar in items if bar.value is not None]
    flat = all(v in (0.0, None) for bar in known for v in (bar.value, bar.low, bar.high))
    if not known or (centred and flat):
        return ""
    labels = [shortened(bar.label, LABEL_CHARS) for bar in items]
    fig, ax = _figure(max(1.2, 0.7 + ROW_IN * len(items)), labels)
    positions = list(range(len(items)))[::-1]
    values = [bar.value or 0.0 for bar in items]
    ax.barh(positions, values, color=[bar.color for bar in items], height=0.65)
    for y, bar in zip(positions, items, strict=True):
        if bar.low is not None and bar.high is not None and bar.value is not None:
            ax.errorbar(
                bar.value,
                y,
                xerr=[[bar.value - bar.low], [bar.high - bar.value]],
                fmt="none",
                ecolor="#222222",
                capsize=3,
                linewidth=1,
            )
    ax.set_yticks(positions, labels=labels)
    if centred:
        reach = max(
            [abs(v) for bar in known for v in (bar.value, bar.low, bar.high) if v is not None] + [0.05]
        )
        ax.set_xlim(-reach * 1.15, reach * 1.15)
        ax.axvline(0, color="#333333", linewidth=0.8)
    elif usd:
        from matplotlib.ticker import MaxNLocator, StrMethodFormatter

        ax.set_xlim(0, max(bar.value or 0.0 for bar in known) * 1.15 or 1.0)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.xaxis.set_major_formatter(StrMethodFormatter("${x:,.4f}"))
    else:
        ax.set_xlim(0, 1)
    ax.set_xlabel(axis)
    _notes(ax, positions, items)
    _title(fig, ax, title, legend)
    return _svg(fig, title)


@_styled
def stacked(title: str, rows: Sequence[tuple[str, Sequence[int]]], parts: Sequence[tuple[str, str]]) -> str:
    """Horizontal stacked counts (e.g. pass and fail per termination reason); empty without rows."""
    if not rows:
        return ""
    labels = [shortened(row[0], LABEL_CHARS) for row in rows]
    fig, ax = _figure(max(1.2, 0.9 + ROW_IN * len(rows)), labels)
    positions = list(range(len(rows)))[::-1]
    left = [0] * len(rows)
    for index, (name, color) in enumerate(parts):
        counts = [row[1][index] for row in rows]
        ax.barh(positions, counts, left=left, color=color, height=0.65, label=name)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    ax.set_yticks(positions, labels=labels)
    ax.set_xlabel("simulations")
    _integer_axis(ax)
    _title(fig, ax, title, parts)
    return _svg(fig, title)


@_styled
def lines(title: str, curves: Sequence[Line], *, axis: str, centred: bool = False) -> str:
    """Curves over k with interval whiskers; nothing for a single k (a table says it better)."""
    ks = sorted({k for curve in curves for k in curve.xs})
    if len(ks) < 2:
        return ""
    fig, ax = _figure(2.6)
    shift = 0.06
    for index, curve in enumerate(curves):
        offset = (index - (len(curves) - 1) / 2) * shift
        points = [
            (k + offset, y, lo, hi)
            for k, y, lo, hi in zip(curve.xs, curve.ys, curve.lows, curve.highs, strict=True)
            if y is not None
        ]
        if not points:
            continue
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        errors = [
            [y - (lo if lo is not None else y) for _, y, lo, _ in points],
            [(hi if hi is not None else y) - y for _, y, _, hi in points],
        ]
        ax.errorbar(
            xs,
            ys,
            yerr=errors,
            color=curve.color,
            marker="o",
            markersize=4,
            capsize=3,
            linewidth=1.5,
            label=shortened(curve.name, LABEL_CHARS),
        )
    ax.set_xticks(ks)
    ax.set_xlabel("k (trials that must all succeed)")
    ax.set_ylabel(axis)
    if centred:
        ax.axhline(0, color="#333333", linewidth=0.8)
    else:
        ax.set_ylim(0, 1.02)
    if len(curves) > 1 or centred:
        ax.legend(frameon=False, fontsize=8)
    ax.set_title(shortened(title, TITLE_CHARS))
    return _svg(fig, title)


def _figure(height: float, row_labels: Sequence[str] = ()) -> tuple[Any, Axes]:
    """A figure of the report's width, wider when row labels are wide enough to crowd out the plot."""
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    measure, font = TextToPath(), FontProperties()
    points = max(
        (measure.get_text_width_height_descent(label, font, False)[0] for label in row_labels), default=0
    )
    fig = Figure(figsize=(WIDTH_IN + max(0.0, points / 72 - LABEL_ROOM_IN), height), layout="constrained")
    return fig, fig.subplots()


def _notes(ax: Axes, positions: Sequence[int], items: Sequence[Bar]) -> None:
    """Print each bar's note right of the plot area (kept inside the figure by the tight bounding box)."""
    for y, bar in zip(positions, items, strict=True):
        if bar.note:
            ax.annotate(
                bar.note,
                xy=(1.0, y),
                xycoords=("axes fraction", "data"),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
                color="#444444",
            )


def _title(fig: Any, ax: Axes, title: str, legend: Sequence[tuple[str, str]]) -> None:
    """The title above the plot and the colour legend on its own line below it, so nothing overlaps."""
    from matplotlib.patches import Patch

    ax.set_title(shortened(title, TITLE_CHARS))
    if legend:
        handles = [Patch(color=color, label=shortened(name, LABEL_CHARS)) for name, color in legend]
        fig.legend(handles=handles, loc="outside lower left", ncol=len(handles), frameon=False, fontsize=8)


def _integer_axis(ax: Axes) -> None:
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _svg(fig: Any, title: str) -> str:
    """The figure as an inline `<svg>` element: no XML prolog, ids unique to this chart."""
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context({"svg.hashsalt": title}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.DOTALL)
    return f'<figure class="plot" aria-label="{escape(shortened(title, TITLE_CHARS))}">{svg}</figure>'


def missing_extra() -> str:
    """The line that says how to get the plots."""
    return f"Plots need matplotlib: {install_hint('plots')}."


def fallback() -> str:
    """What stands where the plots would be when matplotlib is missing."""
    return f'<p class="note">{escape(missing_extra())}</p>'
