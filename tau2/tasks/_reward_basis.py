"""The components a task's reward can be composed from (its "reward basis", as τ²-bench names them)."""

from __future__ import annotations

from enum import StrEnum


class RewardType(StrEnum):
    """A gating component: the final database, stored assertions, judged statements, reference actions,
    or information the agent had to tell the customer."""

    DB = "DB"
    ENV_ASSERTION = "ENV_ASSERTION"
    NL_ASSERTION = "NL_ASSERTION"
    ACTION = "ACTION"
    COMMUNICATE = "COMMUNICATE"
