"""Telling conversations apart for the simulated-user audit: two records of one task whose trajectories hold
the same entries and end the same way get the same findings, whatever their timing, so the audit of a
run's older records checks each such conversation once (an offline agent and user say the same in every
trial of a task; a model's conversations rarely repeat, and then cost one key each)."""

from __future__ import annotations

from hashlib import blake2b
from typing import Any, Final

import orjson

from tau2.runs import SUMMARY_FIELDS

ENTRY_TIMING: Final = "elapsed_s"
TRAJECTORY_TIMING: Final = "duration_s"
"""The fields of an entry and of a trajectory that say when things happened: the only ones the simulated-user
checks never read (`tests/audit/test_run_audit.py` holds them to that)."""


def conversation_key(task_id: str, data: dict[str, Any]) -> bytes | None:
    """A digest of what the simulated-user checks can read of a record's JSON object — its task, its
    trajectory but for timing, and the summary the record stores for it — or None when the record holds
    no trajectory (or one too malformed to key: validating it says what is wrong)."""
    trajectory = data.get("trajectory")
    if not isinstance(trajectory, dict):
        return None
    try:
        untimed = [{**entry, ENTRY_TIMING: 0} for entry in trajectory.get("entries", [])]
        untimed_trajectory = {**trajectory, "entries": untimed, TRAJECTORY_TIMING: 0}
        encoded = orjson.dumps([task_id, [data.get(name) for name in SUMMARY_FIELDS], untimed_trajectory])
    except TypeError:  # entries that are not objects, an integer beyond 64 bits: validation says what
        return None
    return blake2b(encoded, digest_size=16).digest()
