"""A state's digest as τ²-bench computes its database hash: SHA-256 of the state's `model_dump()` written as
JSON with sorted keys (every field, nulls included; anything JSON has no type for written as its `str`).

Two states match when their digests do, so values Python calls equal but JSON writes apart differ here:
`True`, `1` and `1.0`; a key holding null and a missing key; `0.0` and `-0.0`.
"""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel


def state_text(state: BaseModel) -> str:
    """The text τ²-bench hashes for a database: sorted-key JSON of `model_dump()`."""
    return json.dumps(state.model_dump(), sort_keys=True, default=str)


def state_digest(state: BaseModel) -> str:
    """The SHA-256 (hex) of `state_text(state)`: τ²-bench's database hash."""
    return hashlib.sha256(state_text(state).encode()).hexdigest()
