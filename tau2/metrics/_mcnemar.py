"""The exact McNemar test on paired (task, trial) outcomes of two arms: only the discordant units (passed in
one arm, failed in the other) carry evidence, and under no difference each is equally likely to go either
way."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict


class McNemar(BaseModel):
    """The paired units of an arm against its baseline, counted by outcome, and the test's p-value."""

    model_config = ConfigDict(frozen=True)

    flips_to_pass: int
    """Units that failed in the baseline and passed in the arm."""
    flips_to_fail: int
    """Units that passed in the baseline and failed in the arm."""
    both_pass: int
    both_fail: int
    incomplete: int
    """Units missing (an infrastructure error, or not run yet) in either arm: left out of the test."""
    p_value: float


def mcnemar(pairs: Iterable[tuple[bool | None, bool | None]]) -> McNemar:
    """The test on (baseline, arm) outcomes of the same (task, trial) units; None marks a missing outcome."""
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    incomplete = 0
    for baseline, arm in pairs:
        if baseline is None or arm is None:
            incomplete += 1
        else:
            counts[baseline, arm] += 1
    to_pass, to_fail = counts[False, True], counts[True, False]
    return McNemar(
        flips_to_pass=to_pass,
        flips_to_fail=to_fail,
        both_pass=counts[True, True],
        both_fail=counts[False, False],
        incomplete=incomplete,
        p_value=mcnemar_p_value(to_pass, to_fail),
    )


def mcnemar_p_value(flips_to_pass: int, flips_to_fail: int) -> float:
    """Two-sided exact p-value: twice the binomial(b + c, ½) tail at the rarer direction, at most 1.

    The tail is summed in integers (each binomial coefficient from the one before) and divided once, so the
    result is the exact value rounded to the nearest float; 10,000 discordant units take milliseconds."""
    if flips_to_pass < 0 or flips_to_fail < 0:
        raise ValueError(f"counts must be non-negative: {flips_to_pass=}, {flips_to_fail=}")
    discordant = flips_to_pass + flips_to_fail
    rarer = min(flips_to_pass, flips_to_fail)
    if 2 * rarer == discordant:
        return 1.0
    term, tail = 1, 1
    for i in range(rarer):
        term = term * (discordant - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / (1 << discordant))
