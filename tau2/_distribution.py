"""What this package is called where it is installed from: the distribution `tau2-dualcontrol` (the import
name and the command stay `tau2`; the name `tau2` on the package index belongs to another project), its
installed version, and the one way every message says how to install an optional extra."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final

DISTRIBUTION: Final = "tau2-dualcontrol"
"""The distribution's name on the package index and in installed metadata."""


def installed_version() -> str | None:
    """The installed distribution's version; None when tau2 runs without being installed (its folder on the
    import path)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return None


@cache
def _in_checkout() -> bool:
    """Whether tau2 runs from a source checkout (an editable install, or the folder on the import path): its
    `pyproject.toml` sits beside the package, which no installed wheel has."""
    return (Path(__file__).resolve().parent.parent / "pyproject.toml").is_file()


def install_hint(extra: str) -> str:
    """The command that installs the optional `extra`: from a checkout, the editable install of the checkout
    with it; otherwise the distribution from the package index with it."""
    if _in_checkout():
        return f"pip install -e '.[{extra}]' (in the tau2 checkout)"
    return f"pip install '{DISTRIBUTION}[{extra}]'"
