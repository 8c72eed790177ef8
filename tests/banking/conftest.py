"""Shared fixtures of the banking tests: τ²-bench's public banking data beside the repository (skipped
without it, except on CI) and fresh worlds of our own data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tau2 import World, get_domain

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "tau2-banking"


@pytest.fixture(scope="session")
def banking_data() -> Path:
    """τ²-bench's banking data directory (db, task folder, documents, prompts, gold replay)."""
    if not SHARED.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"conformance data missing: {SHARED}")
        pytest.skip(f"conformance data not present at {SHARED}")
    return SHARED


@pytest.fixture
def world() -> World:
    """A fresh world of our own bank."""
    return World.create(get_domain("banking_knowledge"))
