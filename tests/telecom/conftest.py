"""Fixtures of the telecom tests: the τ²-bench reference data (skipped when absent) and fresh worlds."""

from __future__ import annotations

from pathlib import Path

import pytest
from telecom_support import OWN_DATA_DIR, REFERENCE_DIR, make_world

from tau2.world import World


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """τ²-bench's telecom data directory."""
    if not (REFERENCE_DIR / "db.toml").is_file():
        pytest.skip(f"τ²-bench reference data not found at {REFERENCE_DIR.resolve()}")
    return REFERENCE_DIR


@pytest.fixture(scope="session")
def own_data_dir() -> Path:
    """Our own telecom data directory."""
    if not (OWN_DATA_DIR / "db.toml").is_file() or not (OWN_DATA_DIR / "user_db.toml").is_file():
        pytest.skip(f"our telecom data is not written yet ({OWN_DATA_DIR})")
    return OWN_DATA_DIR


@pytest.fixture
def world(reference_dir: Path) -> World:
    """A world on the reference data, bound to John Smith (C1001 / L1002, 555-123-2002)."""
    return make_world(reference_dir)


@pytest.fixture
def unbound(reference_dir: Path) -> World:
    """A world on the reference data whose phone is not bound to any line."""
    return make_world(reference_dir, bind=False)
