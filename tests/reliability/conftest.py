"""The reliability suite's scale: a fast subset in the default test run, the full suite with
`TAU2_RELIABILITY=full pytest tests/reliability`, whose figures `docs/reliability.md` records."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class ReliabilityScale:
    """How hard each reliability test pushes: `full` for the documented account, `fast` for every test run."""

    full: bool

    def pick(self, fast: int, full: int) -> int:
        """`full` in the full suite, `fast` otherwise (a count of inputs, kills, simulations, ...)."""
        return full if self.full else fast


@pytest.fixture(scope="session")
def reliability_scale() -> ReliabilityScale:
    """The scale chosen by `TAU2_RELIABILITY` (`full`, or anything else for the fast subset)."""
    return ReliabilityScale(full=os.environ.get("TAU2_RELIABILITY") == "full")
