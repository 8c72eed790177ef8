"""Fixtures of the generator tests: the τ²-bench data (skipped when absent) and generations shared by the
whole session, so that pool-wide tests generate once."""

from __future__ import annotations

from pathlib import Path

import pytest
from generator_support import TAU2_DATA, TAU2_OPTIONS

from tau2.domains.telecom.catalog import CATALOG
from tau2.generator.pipeline import Generation, generate
from tau2.tasks import Catalog, Domain, get_domain
from tau2.world import World


@pytest.fixture(scope="session")
def telecom() -> Domain:
    """The telecom domain, with its catalog registered."""
    return get_domain("telecom")


@pytest.fixture(scope="session")
def tau2_data() -> Path:
    """τ²-bench's telecom data directory."""
    if not (TAU2_DATA / "db.toml").is_file():
        pytest.skip(f"τ²-bench reference data not found at {TAU2_DATA}")
    return TAU2_DATA


@pytest.fixture(scope="session")
def tau2_catalog(telecom: Domain, tau2_data: Path) -> Catalog:
    """The telecom catalog for τ²-bench's only eligible target."""
    return CATALOG.catalogs(World.create(telecom, tau2_data))[0]


@pytest.fixture(scope="session")
def own_catalogs(telecom: Domain) -> list[Catalog]:
    """The telecom catalogs for every eligible target of our data."""
    return CATALOG.catalogs(World.create(telecom))


@pytest.fixture(scope="session")
def tau2_pool(telecom: Domain, tau2_data: Path) -> Generation:
    """The whole τ²-compatible pool (3405 tasks), generated and verified once per session."""
    return generate(telecom, TAU2_OPTIONS, tau2_data, lint=False)
