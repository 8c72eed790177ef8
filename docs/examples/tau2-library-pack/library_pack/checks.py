"""The pack's own checks and statistic: a lint check of library tasks, a simulated-user check of library
conversations, and an experiment statistic. Each is one object; the pack installs them as entry points."""

import re
from collections.abc import Sequence

from tau2.audit import AuditedTrajectory, LintCheck, LintedTask, Severity, UserCheck
from tau2.episode import EntryKind
from tau2.metrics import ExperimentStatistic, PairedUnit
from tau2.world import Side

CARD = re.compile(r"\bL-\d+\b")
"""A library card number, as the desk's `find_member` takes it."""


def _card_not_stated(linted: LintedTask) -> str | None:
    task = linted.task
    if task.domain != "library" or CARD.search(task.user_scenario.text()):
        return None
    return "the customer's instructions state no library card number (L-…), which the desk needs"


CARD_NOT_STATED = LintCheck(
    name="card_not_stated",
    severity=Severity.ERROR,
    rule="A library task's customer instructions do not state the member's card number, so no desk can find "
    "the member.",
    find=_card_not_stated,
)


def _card_never_given(audited: AuditedTrajectory) -> str | None:
    task = audited.known_task
    cards = set(CARD.findall(task.user_scenario.text())) if task.domain == "library" else set()
    if not cards:
        return None
    said = " ".join(
        entry.text or ""
        for entry in audited.trajectory.entries
        if entry.seat is Side.USER and entry.kind is EntryKind.MESSAGE
    )
    if any(card in said for card in cards):
        return None
    return f"the customer never said its card number ({', '.join(sorted(cards))})"


CARD_NEVER_GIVEN = UserCheck(
    name="card_never_given",
    severity=Severity.WARNING,
    rule="In a library conversation, the customer never says the card number its instructions give.",
    find=_card_never_given,
    needs_task=True,
)


def _flip_share(units: Sequence[PairedUnit]) -> float | None:
    complete = [unit for unit in units if unit.baseline is not None and unit.arm is not None]
    if not complete:
        return None
    return sum(unit.baseline != unit.arm for unit in complete) / len(complete)


FLIP_SHARE = ExperimentStatistic(
    name="flip_share",
    label="flip share",
    description="The share of the units complete in both arms whose outcome differs between them.",
    compute=_flip_share,
)
