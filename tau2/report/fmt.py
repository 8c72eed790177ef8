"""Number formatting shared by the terminal and HTML renderings."""

from __future__ import annotations

NA = "n/a"


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


def cost(value: float | None, unpriced: int, simulations: int) -> str:
    """USD, or how many simulations were unpriced (never a made-up zero)."""
    return f"unpriced ({unpriced}/{simulations})" if value is None else f"${value:.4f}"


def per(value: float | None, count: int) -> str:
    """USD per item."""
    return NA if value is None or not count else f"${value / count:.4f}"
