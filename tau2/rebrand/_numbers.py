"""Numbers as data and text write them, scaled without losing their form: `12`, `12.5`, `"$1,234.50"`,
`"2150.00"` keep their type, currency sign, thousands separators and at least as many decimals."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

NUMBER_TEXT = re.compile(
    r"^(?P<sign>-?)(?P<currency>\$?)(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?$"
)
"""A string that is a number: optional minus and dollar sign, digits (with or without thousands
separators) and optional decimals."""
MONEY = re.compile(r"(?<![\w.,$])\$(?P<amount>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w$]|[.,]\d)")
"""An amount of money written in text: `$50`, `$8,276.23`."""
PLAIN = re.compile(r"^-?\d+(?:\.\d+)?$")


def to_decimal(value: float | int | str) -> Decimal:
    """The exact decimal a number or number text stands for (floats by their shortest text)."""
    try:
        return Decimal(str(value).replace(",", "").replace("$", ""))
    except InvalidOperation:
        raise ValueError(f"not a number: {value!r}") from None


def rounded(value: Decimal, decimals: int) -> Decimal:
    """`value` rounded half up to `decimals` places."""
    return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def written(value: Decimal, decimals: int, thousands: bool) -> str:
    """`value` with at least `decimals` places (more only when it needs them) and optional separators."""
    value = value.normalize() if value == value.to_integral_value() else value
    places = max(decimals, -min(value.as_tuple().exponent, 0))  # type: ignore[operator]
    text = f"{abs(value):,.{places}f}" if thousands else f"{abs(value):.{places}f}"
    return f"-{text}" if value < 0 else text


def decimals_of(text: str) -> int:
    """How many decimals a number text shows."""
    return len(text.split(".", 1)[1]) if "." in text else 0


def rewrite_text(text: str, change: Callable[[Decimal], Decimal | None]) -> str | None:
    """A number text (`"$1,234.50"`) with the value `change` gives, in the same form; None when it is not
    one or `change` gives nothing."""
    match = NUMBER_TEXT.match(text)
    if match is None:
        return None
    value = change(to_decimal(f"{match['sign']}{match['digits']}{match['fraction'] or ''}"))
    if value is None:
        return None
    shown = written(abs(value), decimals_of(text), thousands="," in match["digits"])
    sign = "-" if value < 0 else ""
    return f"{sign}{match['currency']}{shown}"


def numbers_changed(text: str, change: Callable[[Decimal], Decimal | None]) -> str:
    """`text` with each number standing in it (`12`, `$100`, `1,204.50`) given the value `change` gives it,
    written as it was; the others kept."""

    def replace(match: re.Match[str]) -> str:
        number = match.group()
        return rewrite_text(number, change) or number

    return _NUMBER_IN_TEXT.sub(replace, text)


_NUMBER_IN_TEXT = re.compile(
    r"(?<![\w.,$-])(?<!\w-)-?\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w-]|[.,]\d)"
)
"""A number standing in text (not a part of `555-123-2002`), with an optional minus, dollar sign and
thousands separators."""


def as_json_number(value: Decimal, like: float | int) -> float | int:
    """`value` as a JSON number of the type of `like` (an int stays an int when `value` is whole)."""
    if isinstance(like, int) and value == value.to_integral_value():
        return int(value)
    return float(value)


def money_mentions(text: str, change: Callable[[Decimal], Decimal | None]) -> str:
    """`text` with each amount of money (`$1,234.50`) changed where `change` gives a new value, written
    with the same separators and at least the same decimals."""

    def replace(match: re.Match[str]) -> str:
        amount = match["amount"]
        new = change(to_decimal(amount))
        if new is None:
            return str(match.group())
        return f"${written(new, decimals_of(amount), thousands=',' in amount)}"

    return MONEY.sub(replace, text)
