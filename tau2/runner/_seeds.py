"""Per-simulation seeds, derived deterministically from the run seed, the task id and the trial."""

from __future__ import annotations

import hashlib

SEED_BITS = 31
"""Derived seeds fit a signed 32-bit integer, which every provider's `seed` parameter accepts."""


def derive_seed(run_seed: int, task_id: str, trial: int) -> int:
    """The first 31 bits of SHA-256 over `"<run_seed>\\x00<task_id>\\x00<trial>"` (UTF-8), big-endian."""
    digest = hashlib.sha256(f"{run_seed}\x00{task_id}\x00{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> (32 - SEED_BITS)
