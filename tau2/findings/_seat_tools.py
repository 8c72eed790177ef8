"""The tools of each seat as the simulated-user audit reads them, and how it tells an agent message that asks
the customer to use one of its tools."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from tau2.tasks import Task
from tau2.world import Side, ToolKind, ToolResult, WorldRules

_IGNORECASE_FOLDS: Final = str.maketrans({"İ": "i", "ı": "i", "ſ": "s", "K": "k"})
"""The four non-ASCII letters a case-insensitive pattern matches as ASCII letters, mapped to those."""


@dataclass(frozen=True, eq=False)
class SeatTools:
    """The tools of each seat, as the audit needs them: what the customer holds, what only the agent holds,
    and which agent tools write."""

    customer: frozenset[str]
    agent_only: frozenset[str]
    agent_writes: frozenset[str]
    refusal: Callable[[ToolResult], str | None] | None = None
    """The domain's reading of refusals answered as text (a refused write changes nothing)."""

    @classmethod
    def of(cls, domain: WorldRules[Any], task: Task | None = None) -> SeatTools:
        """The seats of `domain` (the customer's tools limited to those the task offers)."""
        user = {tool.name for tool in domain.tools.tools(Side.USER)}
        if task is not None and task.user_tools is not None:
            user &= set(task.user_tools)
        hidden = dict(domain.discoverable_tools()) if domain.discoverable_tools is not None else {}
        user |= {name for name, side in hidden.items() if side is Side.USER}
        agent = {tool.name for tool in domain.tools.tools(Side.AGENT)} | {
            name for name, side in hidden.items() if side is Side.AGENT
        }
        writes = {tool.name for tool in domain.tools.tools(Side.AGENT) if tool.kind is ToolKind.WRITE}
        return cls(frozenset(user), frozenset(agent - user), frozenset(writes), domain.refusal)

    @cached_property
    def _request(self) -> re.Pattern[str] | None:
        """A pattern matching any of the customer's tools as an agent message names it. When every name
        starts with a letter or digit, every match starts a word, which the pattern checks first: other
        places fail at once instead of trying every form (half the cost, the same matches)."""
        if not self.customer:
            return None
        between = r"\s+(?:(?:a|an|the|your|my)\s+)?"
        forms = []
        for name in sorted(self.customer, key=len, reverse=True):
            forms.append(rf"(?<![\w.])(?:\w+\.)?{re.escape(name)}(?!\w)")
            words = name.split("_")
            if len(words) > 1:
                forms.append(r"\b" + between.join(map(re.escape, words)) + r"\b")
        either = "|".join(forms)
        if all(name[:1].isalnum() for name in self.customer):
            either = rf"(?<!\w)(?=\w)(?:{either})"
        return re.compile(either, re.IGNORECASE)

    @cached_property
    def _request_anchors(self) -> tuple[str, ...]:
        """The last word of each customer tool's name: every way `_request` matches a name contains it."""
        return tuple(sorted({name.lower().rsplit("_", 1)[-1] for name in self.customer}))

    def requested(self, text: str | None) -> str | None:
        """The first of the customer's tools `text` asks it to use, as written; None when it asks none. Text
        holding no tool name's last word is passed over without the (costly) pattern."""
        pattern = self._request
        if pattern is None or not text:
            return None
        folded = text.translate(_IGNORECASE_FOLDS).lower()
        if not any(anchor in folded for anchor in self._request_anchors):
            return None
        match = pattern.search(text)
        return None if match is None else match[0]
