"""Number and ID formatting shared by the terminal and HTML renderings."""

from __future__ import annotations

from typing import Final

from tau2.llm import UNPRICED

NA = "n/a"
SEPARATOR: Final = " · "
"""What joins the parts of a headline; a headline too long for its terminal is broken only there."""
LONG_NAME: Final = 200
"""Names (tasks, personas, actions, ...) longer than this many characters are shown shortened on pages;
nothing bounds a name's length, and a page laying out tens of thousands of characters is slow and wide."""


def rate(value: float | None) -> str:
    """A proportion to three decimals."""
    return NA if value is None else f"{value:.3f}"


def signed(value: float | None) -> str:
    """A difference with its sign."""
    return NA if value is None else f"{value:+.3f}"


def interval(low: float | None, high: float | None, sign: bool = False) -> str:
    """A confidence interval, empty when there is none."""
    if low is None or high is None:
        return ""
    return f"[{low:+.2f}, {high:+.2f}]" if sign else f"[{low:.2f}, {high:.2f}]"


def cost(value: float | None) -> str:
    """USD, or `UNPRICED` (None)."""
    return UNPRICED if value is None else usd(value)


def per(value: float | None, count: int) -> str:
    """USD per item, `UNPRICED` when the total is unknown; nothing when there are no items."""
    if not count:
        return ""
    return UNPRICED if value is None else usd(value / count)


def count(value: int) -> str:
    """An integer with thousands separators."""
    return f"{value:,}"


def usd(value: float) -> str:
    """USD with four decimals (cents of a cent matter for cheap models)."""
    return f"${value:,.4f}"


def amount(value: float | None, measure: str, signed: bool = False) -> str:
    """A per-simulation mean: USD for cost (`UNPRICED` when unknown), whole tokens, else one decimal below
    100; thousands separated."""
    if value is None:
        return UNPRICED if measure == "cost" else NA
    sign = "+" if signed else ""
    if measure == "cost":
        return f"{'+' if signed and value >= 0 else ''}{'-' if value < 0 else ''}${abs(value):,.4f}"
    whole = measure == "tokens" or abs(value) >= 100
    return f"{value:{sign},.0f}" if whole else f"{value:{sign},.1f}"


def span(low: float | None, high: float | None, measure: str) -> str:
    """An interval of a per-simulation difference, in the measure's units."""
    if low is None or high is None:
        return ""
    return f"[{amount(low, measure, True)}, {amount(high, measure, True)}]"


def short_id(task_id: str) -> str:
    """A task ID without the `[PERSONA:None]` tail that every persona-less task carries."""
    return task_id.removesuffix("[PERSONA:None]")


def shortened(text: str, limit: int = LONG_NAME) -> str:
    """`text` when it has at most `limit` characters, else its start and end around an ellipsis, `limit`
    characters in all (ends tell task ids and personas apart as much as starts do)."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return f"{text[: limit - tail - 1]}…{text[-tail:]}"
