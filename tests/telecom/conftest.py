"""Fixtures of the telecom tests: the data sets the tool tests run on (the domain's own data always,
τ²-bench's reference data when it is beside the checkout) and fresh worlds on them."""

from __future__ import annotations

from pathlib import Path

import pytest
from telecom_support import DATA_SETS, OWN_DATA_DIR, REFERENCE, TelecomData, make_world

from tau2.world import World


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """τ²-bench's telecom data directory, for the tests about τ²-bench's own files."""
    if not REFERENCE.present():
        pytest.skip(f"τ²-bench reference data not found at {REFERENCE.directory.resolve()}")
    return REFERENCE.directory


@pytest.fixture(scope="session")
def own_data_dir() -> Path:
    """Our own telecom data directory."""
    return OWN_DATA_DIR


@pytest.fixture(scope="session", params=DATA_SETS, ids=[data.label for data in DATA_SETS])
def dataset(request: pytest.FixtureRequest) -> TelecomData:
    """Each data set in turn: the own data always runs, the reference data skips when it is absent."""
    data: TelecomData = request.param
    if not data.present():
        pytest.skip(f"the {data.label} telecom data is not found at {data.directory.resolve()}")
    return data


@pytest.fixture
def world(dataset: TelecomData) -> World:
    """A world on the data set, bound to its subscriber's line."""
    return make_world(dataset)


@pytest.fixture
def unbound(dataset: TelecomData) -> World:
    """A world on the data set whose phone is not bound to any line."""
    return make_world(dataset, bind=False)
