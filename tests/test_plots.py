"""Plot defects that a reader saw, checked on the SVG matplotlib writes: axes fitted to differences,
dollar ticks, nothing drawn without data, a single k not drawn as a lone dot, seats named in legends."""

from __future__ import annotations

import re

import pytest

from tau2.report import plots

pytestmark = pytest.mark.skipif(not plots.available(), reason="matplotlib (the plots extra) is not installed")


def tick_labels(svg: str) -> list[str]:
    """The text of every text element (matplotlib keeps text as text)."""
    return [re.sub(r"<[^>]+>", "", text).strip() for text in re.findall(r"<text[^>]*>.*?</text>", svg, re.S)]


def test_a_small_difference_gets_an_axis_fitted_to_it_not_plus_minus_one() -> None:
    svg = plots.bars("d", [plots.Bar("pass^1", -0.26, -0.30, -0.22)], axis="difference", centred=True)
    labels = tick_labels(svg)
    assert "−1.0" not in labels and "1.0" not in labels
    assert any(label in ("−0.3", "−0.30") for label in labels), labels


def test_cost_ticks_are_dollars_with_four_decimals() -> None:
    svg = plots.bars("cost", [plots.Bar("agent", 0.156068)], axis="USD", usd=True)
    labels = tick_labels(svg)
    assert "0.156068" not in svg and any(re.fullmatch(r"\$0\.\d{4}", label) for label in labels), labels


def test_nothing_is_drawn_without_data_or_for_a_single_k() -> None:
    assert plots.bars("empty", [], axis="x") == ""
    assert plots.bars("none", [plots.Bar("a", None)], axis="x") == ""
    assert plots.bars("flat", [plots.Bar("a", 0.0, 0.0, 0.0)], axis="x", centred=True) == ""
    one_k = plots.Line("run", [1], [0.5], [0.3], [0.7], "#000000")
    assert plots.lines("pass^k", [one_k], axis="pass^k") == ""
    assert plots.stacked("ends", [], [("pass", "#00ff00")]) == ""


def test_long_labels_and_notes_are_kept_whole_and_the_legend_names_the_seats() -> None:
    label = "user_abroad_roaming_disabled_off_and_a_very_long_fault_name"
    svg = plots.bars(
        "actions",
        [plots.Bar(label, 0.5, color=plots.SEAT_COLORS["user"], note="12,345/24,690")],
        axis="share",
        legend=[("user seat (phone tools)", plots.SEAT_COLORS["user"])],
    )
    assert svg.startswith('<figure class="plot"') and "<?xml" not in svg
    labels = tick_labels(svg)
    assert label in labels and "12,345/24,690" in labels and "user seat (phone tools)" in labels
