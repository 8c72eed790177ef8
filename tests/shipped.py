"""What this repository ships, read from its pyproject.toml. Tests that go over every domain go over these,
not over whatever happens to be installed, so an installed third-party pack never changes what they test."""

import tomllib
from pathlib import Path

_PROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))

SHIPPED_DOMAINS: list[str] = sorted(
    name.removeprefix("domain.")
    for name in _PROJECT["project"]["entry-points"]["tau2.plugins"]
    if name.startswith("domain.")
)
"""The domains the repository's own packs register."""
