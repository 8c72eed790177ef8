"""The agent policy texts in `domains/telecom/policies/`: the main policy plus a tech-support part, and for
the extended domain a further part on its services."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tau2.errors import UserInputError

POLICY_DIR = Path(__file__).parent / "policies"
VARIANTS = ("manual", "workflow")
"""Tech-support parts: a troubleshooting manual, or a step-by-step workflow."""


def policy(solo: bool, variant: str) -> str:
    """The agent policy for a mode (solo or interactive) and a tech-support variant (`manual`/`workflow`)."""
    if variant not in VARIANTS:
        raise UserInputError(f"unknown telecom policy variant {variant!r} (available: {', '.join(VARIANTS)})")
    suffix = "_solo" if solo else ""
    return f"{_read(f'main{suffix}.md').rstrip()}\n\n{_read(f'tech_support_{variant}{suffix}.md').rstrip()}\n"


def extended_policy(solo: bool, variant: str) -> str:
    """The extended domain's policy: the telecom policy for the mode and variant, then the part on the
    further services, which decides where the two differ."""
    suffix = "_solo" if solo else ""
    return f"{policy(solo, variant).rstrip()}\n\n{_read(f'extended{suffix}.md').rstrip()}\n"


@cache
def _read(name: str) -> str:
    """One policy file's text, read once."""
    return (POLICY_DIR / name).read_text(encoding="utf-8")
