"""The simulated-user audit: deterministic checks of the customer seat in one interactive trajectory.

Each check has one rule (`user_checks()`: these built-in checks, and every user check registered, declared
or installed). An agent message *asks the customer to use a tool* when it names
one of the customer's tools: its name (`check_status_bar`, `phone.check_status_bar`), or its words in
order with at most an article or possessive between them ("check your status bar", "run a speed test").
Requests in other words are not recognised, so the checks that need one under-report rather than
over-report.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Final

from tau2.episode import GREETING, Entry, EntryKind, TerminationReason, Trajectory
from tau2.findings._findings import Severity, plugin_detail
from tau2.findings._seat_tools import SeatTools
from tau2.findings._user_check import (
    USER_CHECK_REGISTRY,
    AuditedTrajectory,
    UserCheck,
    UserFinding,
    register_user_check,
)
from tau2.tasks import Task
from tau2.world import Side

ENDED_WITH_OPEN_REQUEST = "ended_with_open_request"
ENDED_UNVERIFIED = "ended_unverified"
UNFOUNDED_FACT = "unfounded_fact"
CLAIMED_ACTION_WITHOUT_CALL = "claimed_action_without_call"
TRIED_OTHER_SEAT_TOOL = "tried_other_seat_tool"
IGNORED_REQUEST = "ignored_request"
NEVER_ENDED = "never_ended"
TOOK_AGENT_ROLE = "took_agent_role"
NEVER_STATED_PROBLEM = "never_stated_problem"
USER_SEAT_FAILED = "user_seat_failed"


def audit_trajectory(trajectory: Trajectory, tools: SeatTools, task: Task | None) -> list[UserFinding]:
    """Every simulated-user check that fires on an interactive trajectory, in `user_checks()` order; the
    checks that need the task run only when `task` is given."""
    audited = AuditedTrajectory(trajectory, tools, task)
    where = "on a trajectory whose task is unavailable" if task is None else f"on task {task.id!r}"
    found = []
    for check in user_checks().values():
        if task is None and check.needs_task:
            continue
        built_in = any(check is shipped for shipped in BUILT_IN_USER_CHECKS)
        detail = plugin_detail(
            f"user check {check.name!r}", where, partial(check.find, audited), built_in=built_in
        )
        if detail is not None:
            found.append(UserFinding(check=check.name, detail=detail))
    return found


def _windows(entries: Sequence[Entry]) -> Iterator[tuple[Entry, list[Entry], bool]]:
    """Each agent message, the entries after it up to the agent's next message, and whether one follows."""
    starts = [i for i, e in enumerate(entries) if e.seat is Side.AGENT and e.kind is EntryKind.MESSAGE]
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(entries)
        yield entries[start], list(entries[start + 1 : end]), number + 1 < len(starts)


def _user_called(window: Sequence[Entry]) -> bool:
    return any(e.seat is Side.USER and e.kind is EntryKind.TOOL_CALL for e in window)


def _ended_with_open_request(trajectory: Trajectory, tools: SeatTools) -> str | None:
    if trajectory.termination is not TerminationReason.USER_STOP:
        return None
    entries = trajectory.entries
    last = next(
        (
            i
            for i in range(len(entries) - 1, -1, -1)
            if entries[i].seat is Side.AGENT and entries[i].kind is EntryKind.MESSAGE
        ),
        None,
    )
    if last is None or _user_called(entries[last + 1 :]):
        return None
    message = entries[last]
    asked = tools.requested(message.text)
    if asked is None:
        return None
    return f"entry {message.index} asked for {asked!r}; the customer hung up without a tool call"


def _ended_unverified(trajectory: Trajectory, tools: SeatTools, task: Task) -> str | None:
    if trajectory.termination is not TerminationReason.USER_STOP:
        return None
    if not any(check.side is Side.USER for check in task.evaluation.assertions):
        return None
    entries = trajectory.entries
    user_calls = [e.index for e in entries if e.seat is Side.USER and e.kind is EntryKind.TOOL_CALL]
    last_user_call = max(user_calls, default=-1)
    for entry in reversed(entries):
        if entry.index <= last_user_call:
            return None
        call = entry.tool_call
        if (
            entry.kind is EntryKind.TOOL_RESULT
            and entry.seat is Side.AGENT
            and call is not None
            and call.name in tools.agent_writes
            and entry.result is not None
            and entry.result.ok
            and (tools.refusal is None or tools.refusal(entry.result) is None)
        ):
            return f"the agent's {call.name} (entry {entry.index}) came after the customer's last tool call"
    return None


_TOKEN_CHARS = "A-Za-z0-9#@$.,_+%-"
_TOKEN = re.compile(rf"[{_TOKEN_CHARS}]*\d[{_TOKEN_CHARS}]*")
_ASCII_TOKEN = re.compile(rf"(?<![{_TOKEN_CHARS}])[A-Za-z#@$.,_+%-]*[0-9][{_TOKEN_CHARS}]*")
r"""`_TOKEN` for ASCII text (where `\d` is `[0-9]`): each match is a whole run of token characters holding a
digit, found without trying again at every character of a run that holds none."""
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
_NOT_LOWER_ALNUM = re.compile(r"[^a-z0-9]")
_DECIMAL = re.compile(r"\d+\.\d+")
_NUMBER = re.compile(r"^[$#]?\d[\d,]*(?:\.\d+)?%?$")


def _fact_tokens(text: str) -> Iterator[str]:
    """The identifiers and numbers of a text: tokens with a digit holding three or more letters and digits,
    or a decimal number; trailing punctuation removed."""
    for match in (_ASCII_TOKEN if text.isascii() else _TOKEN).finditer(text):
        token = match[0].strip(".,-_%")
        if len(_NOT_ALNUM.sub("", token)) >= 3 or _DECIMAL.fullmatch(token):
            yield token


def _numeric(token: str) -> float | None:
    if not _NUMBER.match(token):
        return None
    return float(token.strip("$#%").replace(",", ""))


def _flat(text: str) -> str:
    """The text's letters and digits, lower-cased: how facts are compared."""
    return _NOT_LOWER_ALNUM.sub("", text.lower())


class _Knowledge:
    """What the customer could know so far: the texts of its brief and of everything it observed. Observed
    entries are rendered, flattened and searched for numbers only when a stated fact is not found in the
    texts before them, so a conversation whose facts are all in its brief renders nothing."""

    def __init__(self, brief: str) -> None:
        self._brief = brief
        self._pending: list[Entry] = []
        self._read = 0
        """How many of `_pending` are rendered into `_texts`."""
        self._texts: list[str] = [brief] if brief else []
        self._flat: list[str] = []
        """The flattened `_texts`, as far as a look-up needed them."""
        self._joined = ""
        self._joined_count = 0
        """How many of `_flat` `_joined` holds (one separator apart: no fact spans two texts)."""
        self._numbers: set[float] = set()
        self._numbered = 0
        """How many of `_texts` are searched for numbers into `_numbers`."""

    def observe(self, entry: Entry) -> None:
        """An entry the customer saw: an agent message, or one of its own tool calls or results."""
        self._pending.append(entry)

    def knows(self, token: str) -> bool:
        """Whether the token is in a text known so far (letters and digits compared, case ignored) or,
        for a number, whether a known text states the same number."""
        if self._brief and token in self._brief:
            return True  # written out in the brief: its letters and digits are there too
        flat = _flat(token)
        self._flat += map(_flat, self._texts[len(self._flat) :])
        if self._joined_count != len(self._flat):
            self._joined, self._joined_count = "\n".join(self._flat), len(self._flat)
        if self._texts and flat in self._joined:
            return True
        while self._read < len(self._pending):
            entry = self._pending[self._read]
            self._read += 1
            for text in _observed_texts(entry):
                if text:
                    self._texts.append(text)
                    self._flat.append(_flat(text))
                    if flat in self._flat[-1]:
                        return True
        number = _numeric(token)
        if number is None:
            return False
        for text in self._texts[self._numbered :]:
            self._numbers.update(n for n in map(_numeric, _fact_tokens(text)) if n is not None)
        self._numbered = len(self._texts)
        return number in self._numbers


def _observed_texts(entry: Entry) -> Iterator[str | None]:
    """What an observed entry told the customer: an agent message's text, its own tool call's arguments
    and result."""
    if entry.seat is Side.AGENT:
        yield entry.text
    elif entry.tool_call is not None:
        yield str(entry.tool_call.arguments)
        if entry.result is not None:
            yield entry.result.render()


def _observed(entry: Entry) -> bool:
    """Whether the customer learns from the entry: an agent message, or one of its own tool calls or
    results."""
    if entry.seat is Side.AGENT:
        return entry.kind is EntryKind.MESSAGE
    return entry.kind is not EntryKind.MESSAGE and entry.tool_call is not None


def _unfounded_fact(entries: Sequence[Entry], task: Task) -> str | None:
    stated = [
        (index, tokens)
        for index, entry in enumerate(entries)
        if entry.seat is Side.USER and entry.kind is EntryKind.MESSAGE
        if (tokens := list(_fact_tokens(entry.text or "")))
    ]
    if not stated:
        return None
    known = _Knowledge(task.user_scenario.text())
    unfounded: list[str] = []
    seen = 0
    for index, tokens in stated:
        for entry in entries[seen:index]:
            if _observed(entry):
                known.observe(entry)
        seen = index + 1
        unfounded += [t for t in tokens if not known.knows(t) and t not in unfounded]
    if not unfounded:
        return None
    return (
        "stated " + ", ".join(repr(token) for token in unfounded[:5]) + (" …" if len(unfounded) > 5 else "")
    )


_DEVICE_VERBS = (
    "toggled|turned|switched|restarted|rebooted|reset|reseated|reinserted|enabled|disabled|granted|"
    "connected|disconnected|ran|checked|made|paid|set|changed|updated|installed|opened|completed|plugged|did"
)
_CLAIM = re.compile(
    r"\bI(?:'ve|’ve| have| just| already)\s+(?:just\s+|already\s+|now\s+)?"
    r"(?:\w+ed|done|did|ran|made|paid|set|reset|put|run|taken)\b"
    rf"|\bI\s+(?:just\s+|already\s+|now\s+)?(?:{_DEVICE_VERBS})\b"
    r"|^\s*done\b",
    re.IGNORECASE,
)
"""A first-person claim of a finished action: "I've plugged it in", "I have checked", "I toggled it",
"Done"."""


def _claimed_action(entries: Sequence[Entry], tools: SeatTools) -> str | None:
    if not tools.customer:
        return None
    spoke = False
    since_agent: list[Entry] = []
    for entry in entries:
        if entry.seat is Side.AGENT and entry.kind is EntryKind.MESSAGE:
            since_agent = []
            continue
        if entry.seat is Side.USER and entry.kind is EntryKind.MESSAGE:
            claim = _CLAIM.search(entry.text or "")
            if spoke and claim is not None and not _user_called(since_agent):
                return (
                    f"entry {entry.index} says {claim[0].strip()!r} with no tool call since the agent spoke"
                )
            spoke = True
        since_agent.append(entry)
    return None


def _tried_other_seat(entries: Sequence[Entry], tools: SeatTools) -> str | None:
    for entry in entries:
        if entry.seat is not Side.USER:
            continue
        names = []
        if entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
            names = [entry.tool_call.name]
        elif entry.kind is EntryKind.REJECTED_REPLY and entry.rejected is not None:
            names = [call.name for call in entry.rejected.tool_calls]
        foreign = [name for name in names if name in tools.agent_only]
        if foreign:
            return f"entry {entry.index} calls {foreign[0]}, an agent tool"
    return None


def _ignored_request(entries: Sequence[Entry], tools: SeatTools) -> str | None:
    for message, window, answered in _windows(entries):
        replied = any(e.seat is Side.USER and e.kind is EntryKind.MESSAGE for e in window)
        if not answered or not replied or _user_called(window):
            continue  # the (costlier) reading of the request is left for windows it can decide
        asked = tools.requested(message.text)
        if asked is not None:
            return f"entry {message.index} asked for {asked!r}; the customer answered without a tool call"
    return None


_AGENT_PHRASES = re.compile(
    r"\bhow (?:can|may) i (?:help|assist)\b|\bhow can i be of (?:help|assistance)\b"
    r"|\banything else (?:that )?i can (?:help|assist|do)\b"
    r"|\bthanks? (?:you )?for (?:contacting|calling|reaching out to) (?:us|our)\b"
    r"|\bi(?:'d|’d| would) be (?:happy|glad) to (?:help|assist) you\b",
    re.IGNORECASE,
)


def _took_agent_role(entries: Sequence[Entry]) -> str | None:
    for entry in entries:
        if entry.seat is Side.USER and entry.kind is EntryKind.MESSAGE and entry.text:
            match = _AGENT_PHRASES.search(entry.text)
            if match is not None or entry.text.strip() == GREETING:
                said = match[0] if match is not None else GREETING
                return f"entry {entry.index} says {said!r}"
    return None


_WORD = re.compile(r"[^\W_]{3,}")
_FUNCTION_WORD_LIST = """
    about above after again against all also and any are because been before being below between both but
    can cannot could did does doing down during each few for from further had has have having her here hers
    herself him himself his how into its itself just more most myself nor not now off once only other our
    ours out over own same she should some such than that the their theirs them then there these they this
    those through too under until very was were what when where which while who whom why will with would
    you your yours yourself yourselves get got know like need want wants let please thank thanks hello hey
    help today tell say said okay yes sure well really still one
"""
_FUNCTION_WORDS: Final = frozenset(_FUNCTION_WORD_LIST.split())
"""Words that say nothing of a problem: function words, and what every chat or brief says."""
_KEY_LENGTH = 4
"""Key words compare by this many first characters, so a word's forms match ("plugged", "plug")."""


def _key_words(text: str) -> dict[str, str]:
    """The key words of a text, by their first `_KEY_LENGTH` characters (case folded): its words of three
    or more letters and digits that are not function words."""
    keys: dict[str, str] = {}
    for word in _WORD.findall(text.casefold()):
        if word not in _FUNCTION_WORDS:
            keys.setdefault(word[:_KEY_LENGTH], word)
    return keys


def _never_stated_problem(entries: Sequence[Entry], task: Task) -> str | None:
    keys = _key_words(task.user_scenario.reason())
    if not keys:
        return None
    needed = 1 if len(keys) <= 2 else 2
    agents: set[str] = set()
    stated: set[str] = set()
    for entry in entries:
        if entry.kind is not EntryKind.MESSAGE or not entry.text:
            continue
        words = _key_words(entry.text).keys()
        if entry.seat is Side.AGENT:
            agents.update(words)
            continue
        stated.update(key for key in words if key in keys and key not in agents)
        if len(stated) >= needed:
            return None
    said = ", ".join(repr(keys[key]) for key in keys if key in stated) or "none"
    shown = ", ".join(repr(word) for word in list(keys.values())[:6]) + (" …" if len(keys) > 6 else "")
    return f"it said {said} of its reason's key words ({shown}) before the agent did ({needed} needed)"


_SEAT_FAILURES = (TerminationReason.ACTOR_ERROR, TerminationReason.CONTEXT_OVERFLOW)


def _seat_failed(trajectory: Trajectory) -> str | None:
    reason, detail = trajectory.termination, trajectory.termination_detail or ""
    if reason is not None and reason in _SEAT_FAILURES and detail.startswith(f"{Side.USER.value} actor"):
        return f"{reason.value}: {detail}"
    return None


E, W = Severity.ERROR, Severity.WARNING
BUILT_IN_USER_CHECKS: tuple[UserCheck, ...] = (
    UserCheck(
        name=ENDED_WITH_OPEN_REQUEST,
        severity=E,
        rule="The customer ended the call right after an agent message asking it to use one of its tools, "
        "without calling any tool since.",
        find=lambda a: _ended_with_open_request(a.trajectory, a.tools),
    ),
    UserCheck(
        name=ENDED_UNVERIFIED,
        severity=W,
        rule="The task is judged on the customer's side (it has customer-side assertions), and the customer "
        "ended the call without calling a tool after the agent's last change.",
        find=lambda a: _ended_unverified(a.trajectory, a.tools, a.known_task),
        needs_task=True,
    ),
    UserCheck(
        name=UNFOUNDED_FACT,
        severity=E,
        rule="A customer message states an identifier or number (three or more letters and digits with a "
        "digit among them, or a decimal number) found neither in its instructions and persona nor in "
        "anything it observed before (agent messages, its own tool calls and results).",
        find=lambda a: _unfounded_fact(a.trajectory.entries, a.known_task),
        needs_task=True,
    ),
    UserCheck(
        name=CLAIMED_ACTION_WITHOUT_CALL,
        severity=E,
        rule='A customer holding tools says it has done something on its side ("I\'ve turned…", "I '
        'checked…", "done") without a tool call since the agent\'s previous message (its opening message '
        "aside).",
        find=lambda a: _claimed_action(a.trajectory.entries, a.tools),
    ),
    UserCheck(
        name=TRIED_OTHER_SEAT_TOOL,
        severity=W,
        rule="The customer called, or tried to call, a tool of the agent's seat.",
        find=lambda a: _tried_other_seat(a.trajectory.entries, a.tools),
    ),
    UserCheck(
        name=IGNORED_REQUEST,
        severity=E,
        rule="An agent message asked the customer to use one of its tools and the customer answered without "
        "calling any tool before the agent spoke again.",
        find=lambda a: _ignored_request(a.trajectory.entries, a.tools),
    ),
    UserCheck(
        name=NEVER_ENDED,
        severity=W,
        rule="The step limit ended the conversation: the customer never ended the call.",
        find=lambda a: (
            "the step limit ended it" if a.trajectory.termination is TerminationReason.MAX_STEPS else None
        ),
    ),
    UserCheck(
        name=TOOK_AGENT_ROLE,
        severity=E,
        rule='A customer message greets or offers help as the agent does ("How can I help you?", "Is there '
        'anything else I can help with?", "Thank you for contacting us").',
        find=lambda a: _took_agent_role(a.trajectory.entries),
    ),
    UserCheck(
        name=NEVER_STATED_PROBLEM,
        severity=E,
        rule="The customer never stated its problem: its messages say fewer than two key words of its reason "
        "for calling (one, when the reason has at most two) before an agent message says them. Key words are "
        "the reason's words of three or more letters and digits, common function words aside, compared by "
        "their first four characters; free-text instructions are their own reason.",
        find=lambda a: _never_stated_problem(a.trajectory.entries, a.known_task),
        needs_task=True,
    ),
    UserCheck(
        name=USER_SEAT_FAILED,
        severity=E,
        rule="The episode ended because the customer's seat failed: its replies broke the turn protocol too "
        "often, or its model's context overflowed.",
        find=lambda a: _seat_failed(a.trajectory),
    ),
)
"""The simulated-user checks tau2 ships, in the order their findings are listed."""
for _check in BUILT_IN_USER_CHECKS:
    register_user_check(_check)


def user_checks() -> dict[str, UserCheck]:
    """Every simulated-user check that runs, by name: the built-ins in their order, then the others
    registered, declared or installed, by name. One that fails to load is one `UserInputError` line."""
    rank = {check.name: number for number, check in enumerate(BUILT_IN_USER_CHECKS)}
    ordered = sorted(
        USER_CHECK_REGISTRY.all(), key=lambda check: (rank.get(check.name, len(rank)), check.name)
    )
    return {check.name: check for check in ordered}
