"""A small SVG renderer for the HTML reports: horizontal bars and lines, both with interval whiskers.
Output is inline SVG (no namespace URL, no external fonts) and deterministic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

WIDTH: Final = 640
_LABEL_W: Final = 200
_NOTE_W: Final = 130
_ROW_H: Final = 22
_TOP: Final = 34
_AXIS_H: Final = 28
_LINE_H: Final = 300
_MARGIN: Final = (56, 24, 44, 44)
"""Line chart margins: left, right, top, bottom."""
_X_PAD: Final = 24
_TICKS: Final = 4
_LABEL_CHARS: Final = 30
COLORS: Final = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1")
NEGATIVE: Final = "#e15759"


@dataclass(frozen=True)
class Bar:
    """One labelled bar; `low`/`high` draw an interval, `note` is printed right of the plot."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Point:
    """One point of a line, with an optional interval."""

    x: int
    y: float | None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Series:
    """A named line."""

    name: str
    points: Sequence[Point]


def bar_chart(title: str, bars: Sequence[Bar], lo: float = 0.0, hi: float = 1.0) -> str:
    """Horizontal bars from zero on the axis [lo, hi]; negative bars in a warning colour."""
    left, right = _LABEL_W, WIDTH - _NOTE_W
    rows_h = max(1, len(bars)) * _ROW_H
    height = _TOP + rows_h + _AXIS_H

    def x(value: float) -> float:
        return left + (_clamp(value, lo, hi) - lo) / (hi - lo) * (right - left)

    parts = [_open(title, height), _text(8, 20, title, weight="bold")]
    for i in range(_TICKS + 1):
        tick = lo + (hi - lo) * i / _TICKS
        parts.append(_line(x(tick), _TOP, x(tick), _TOP + rows_h, "#dddddd"))
        parts.append(_text(x(tick), _TOP + rows_h + 16, f"{tick:g}", anchor="middle"))
    if not bars:
        parts.append(_text((left + right) / 2, _TOP + 15, "no data", anchor="middle"))
    zero = x(0.0)
    for i, bar in enumerate(bars):
        top = _TOP + i * _ROW_H
        middle = top + _ROW_H / 2
        parts.append(_text(left - 6, middle + 4, _shorten(bar.label), anchor="end", tooltip=bar.label))
        if bar.value is not None:
            start, end = sorted((zero, x(bar.value)))
            color = NEGATIVE if bar.value < 0 else COLORS[0]
            parts.append(_rect(start, top + 4, max(end - start, 1.0), _ROW_H - 8, color))
        if bar.low is not None and bar.high is not None:
            parts.extend(_whisker_h(x(bar.low), x(bar.high), middle))
        parts.append(_text(right + 6, middle + 4, bar.note))
    parts.append(_line(zero, _TOP, zero, _TOP + rows_h, "#333333"))
    return "".join(parts) + "</svg>"


def line_chart(title: str, x_label: str, series: Sequence[Series], lo: float = 0.0, hi: float = 1.0) -> str:
    """Lines over integer x with points and vertical interval whiskers; a legend when several lines."""
    m_left, m_right, m_top, m_bottom = _MARGIN
    plot_w, plot_h = WIDTH - m_left - m_right, _LINE_H - m_top - m_bottom
    xs = sorted({point.x for s in series for point in s.points})
    first, last = (xs[0], xs[-1]) if xs else (0, 1)

    def px(value: float) -> float:
        inner = plot_w - 2 * _X_PAD
        return m_left + _X_PAD + (inner / 2 if first == last else (value - first) / (last - first) * inner)

    def py(value: float) -> float:
        return m_top + plot_h - (_clamp(value, lo, hi) - lo) / (hi - lo) * plot_h

    parts = [_open(title, _LINE_H), _text(8, 20, title, weight="bold")]
    for i in range(_TICKS + 1):
        tick = lo + (hi - lo) * i / _TICKS
        parts.append(_line(m_left, py(tick), m_left + plot_w, py(tick), "#dddddd"))
        parts.append(_text(m_left - 6, py(tick) + 4, f"{tick:g}", anchor="end"))
    for value in xs:
        parts.append(_text(px(value), m_top + plot_h + 16, str(value), anchor="middle"))
    parts.append(_text(m_left + plot_w / 2, _LINE_H - 8, x_label, anchor="middle"))
    if lo < 0 < hi:
        parts.append(_line(m_left, py(0.0), m_left + plot_w, py(0.0), "#333333"))
    for index, s in enumerate(series):
        color = COLORS[index % len(COLORS)]
        shift = (index - (len(series) - 1) / 2) * 5
        known = [(px(p.x) + shift, py(p.y), p) for p in s.points if p.y is not None]
        if len(known) > 1:
            coords = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy, _ in known)
            parts.append(f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2"/>')
        for cx, cy, p in known:
            if p.low is not None and p.high is not None:
                parts.extend(_whisker_v(cx, py(p.low), py(p.high), color))
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="{color}"/>')
        if len(series) > 1:
            ly = m_top - 24 + index * 14
            parts.append(_rect(WIDTH - 150, ly - 9, 10, 10, color))
            parts.append(_text(WIDTH - 134, ly, s.name))
    return "".join(parts) + "</svg>"


def _open(title: str, height: int) -> str:
    return (
        f'<svg viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" font-family="sans-serif" font-size="12">'
    )


def _text(
    x: float, y: float, text: str, anchor: str = "start", weight: str = "normal", tooltip: str | None = None
) -> str:
    hover = f"<title>{escape(tooltip)}</title>" if tooltip is not None else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-weight="{weight}">'
        f"{hover}{escape(text)}</text>"
    )


def _line(x1: float, y1: float, x2: float, y2: float, color: str) -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}"/>'


def _rect(x: float, y: float, width: float, height: float, color: str) -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{color}"/>'


def _whisker_h(x1: float, x2: float, y: float) -> list[str]:
    return [
        _line(x1, y, x2, y, "#222222"),
        _line(x1, y - 5, x1, y + 5, "#222222"),
        _line(x2, y - 5, x2, y + 5, "#222222"),
    ]


def _whisker_v(x: float, y1: float, y2: float, color: str) -> list[str]:
    return [
        _line(x, y1, x, y2, color),
        _line(x - 4, y1, x + 4, y1, color),
        _line(x - 4, y2, x + 4, y2, color),
    ]


def _clamp(value: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, value))


def _shorten(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
