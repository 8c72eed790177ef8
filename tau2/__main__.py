"""`python -m tau2`: the same as the `tau2` console script."""

from tau2.cli import console

raise SystemExit(console())
