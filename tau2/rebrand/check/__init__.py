"""Checking a rebrand by scoring reference actions as the episode's evaluation does: the renamed reference
on the rebranded world must score what the original scored on its own, and the original reference on the
rebranded world must fail (the memorisation check). It sits above `tau2.episode`, whose evaluation it uses;
`tau2.rebrand` itself stays below it."""

from tau2.rebrand.check._check import Check, Summary, TaskCheck, check_rebrand, check_task, check_world
from tau2.rebrand.check._score import replay_reward, replay_start_reward, writes_records

__all__ = [
    "Check",
    "Summary",
    "TaskCheck",
    "check_rebrand",
    "check_task",
    "check_world",
    "replay_reward",
    "replay_start_reward",
    "writes_records",
]
