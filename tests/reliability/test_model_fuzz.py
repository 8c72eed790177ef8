"""Model-output fuzzing: `tau2 run` against the scripted server answering with faulty responses of many
kinds (malformed calls, hostile text, broken bodies, HTTP errors, dropped connections, hangs) mixed with
good ones, over many simulations of both seats, interactive and solo, on both transports.

Every response the server sends is booked with what it must become: one actor turn (an accepted one, an
error turn, or a failed tool call) for a model answer, nothing but a retry for a provider fault, the end
of the simulation as an infrastructure error for a fatal one. The records must agree with the book, and a
`--resume` must re-run exactly the infrastructure errors.

Whether an answer reaches the client before the seat's per-attempt timeout is not the server's to decide:
on a loaded machine any answer can be late, and the client rightly gives up on it and asks again. The book
therefore follows what the client did, which the next request of the seat shows: a retry sends the very
conversation of the attempt it repeats, while any accepted turn (an answer, a tool result, a notice about a
rejected reply) changes it. An answer followed by its own retry is booked as lost, never as a turn.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from reliability.conftest import ReliabilityScale
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import EntryKind, TerminationReason
from tau2.llm import RetryPolicy, call_settings
from tau2.runs import SimulationRecord, load_run, read_records
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedToolCall
from tau2.world import Side

TIMEOUT_S = 4.0
"""Each seat's per-attempt timeout: a hang outlasts it, an answer on a loaded machine must not."""
MAX_ACTOR_RETRIES = 3
"""The episode default: this many error turns in a row end the episode as `actor_error`."""
FAULT_RATE = 0.45
MAX_TRANSIENT_STREAK = 2
"""Provider faults in a row for one request, well under the retries a seat has (4)."""
DOOMED_SHARE = 0.15
"""Simulations of the first run that meet a fatal provider fault (400, 404, or an outage)."""


class Outcome(StrEnum):
    """What a response must become."""

    GOOD = "good"
    ERROR_TURN = "error_turn"
    """A model fault rejected by the protocol: a `rejected_reply` entry and its correction."""
    TOOL_ERROR = "tool_error"
    """A model fault the world refuses: a failed tool result."""
    ACCEPTED = "accepted"
    """Hostile but usable: an ordinary turn, its text stored safely."""
    TRANSIENT = "transient"
    """A provider fault the client retries: never a turn."""
    FATAL = "fatal"
    """A provider fault that ends the simulation as an infrastructure error."""
    LOST = "lost"
    """An answer the client gave up on (it came after the timeout) and asked for again: never a turn."""

    @property
    def is_turn(self) -> bool:
        """Whether the response reaches the actor as one turn."""
        return self in {Outcome.GOOD, Outcome.ERROR_TURN, Outcome.TOOL_ERROR, Outcome.ACCEPTED}

    @property
    def is_model_fault(self) -> bool:
        return self in {Outcome.ERROR_TURN, Outcome.TOOL_ERROR, Outcome.ACCEPTED}

    @property
    def is_usable(self) -> bool:
        """Whether the response, taken, moves the seat's script on (a fault does not)."""
        return self in {Outcome.GOOD, Outcome.ACCEPTED}


ROLE_TOOL = {"agent": "get_account", "user": "look_at_lamp", "solo": "enable_power"}
"""A tool each role holds, for faults that only need a name."""
OTHER_TOOL = {"agent": "plug_in", "user": "enable_power"}
SCRIPTS: dict[str, list[Reply]] = {
    "agent": [
        Reply.tool_call("get_account", {"customer": "Ada"}),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.text("Power is back on. Please plug your lamp in."),
        Reply.text("Your issue is resolved."),
        Reply.text("Is there anything else?"),
    ],
    "user": [
        Reply.text("My lamp is dark."),
        Reply.tool_call("plug_in"),
        Reply.text("I plugged it in and it is lit now."),
        Reply.tool_call("end_call"),
    ],
    "solo": [
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.tool_call("plug_in"),
        Reply.tool_call("done"),
    ],
}


def completion_body(reply: Reply, usage: dict[str, Any] | None) -> str:
    """A `chat.completion` body of `reply` with the given usage object (None leaves it out)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"raw-{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for index, call in enumerate(reply.tool_calls)
        ]
    body: dict[str, Any] = {
        "id": "chatcmpl-fuzz",
        "object": "chat.completion",
        "created": 0,
        "model": "fuzz",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


@dataclass(frozen=True)
class Kind:
    """One kind of faulty response: what it becomes, for which roles, and when the good reply is text."""

    name: str
    outcome: Outcome
    make: Callable[[str, Reply], Reply]
    roles: frozenset[str] = frozenset({"agent", "user", "solo"})
    needs_text: bool = False
    """Only in place of a good text reply (hostile text that is still a fine message)."""


def _tool(role: str, arguments: Any) -> Reply:
    return Reply.tool_call(ROLE_TOOL[role], arguments)


def _decorated(suffix: str) -> Callable[[str, Reply], Reply]:
    return lambda role, good: Reply.text((good.content or "") + suffix)


HANG = "hang"
LATE = "late_answer"
"""The good answer, a little after the seat's timeout: what any answer can be on a loaded machine."""
SLOW = frozenset({HANG, LATE})
"""Kinds that cost a whole timeout: each seat of a simulation gets at most one, on the native transport."""
GOOD_USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
BROKEN = completion_body(Reply.text("cut short"), GOOD_USAGE)
INTERACTIVE = frozenset({"agent", "user"})
AGENT_SIDE = frozenset({"agent", "solo"})
KINDS = [
    # Model faults the protocol rejects: error turns.
    Kind("bad_json_arguments", Outcome.ERROR_TURN, lambda r, g: _tool(r, '{"customer": "Ada"')),
    Kind("list_arguments", Outcome.ERROR_TURN, lambda r, g: _tool(r, "[1, 2]")),
    Kind("string_arguments", Outcome.ERROR_TURN, lambda r, g: _tool(r, '"Ada"')),
    Kind("null_arguments", Outcome.ERROR_TURN, lambda r, g: _tool(r, "null")),
    Kind("unknown_tool", Outcome.ERROR_TURN, lambda r, g: Reply.tool_call("reboot_universe", {"now": True})),
    Kind("empty_tool_name", Outcome.ERROR_TURN, lambda r, g: Reply.tool_call("", {})),
    Kind("surrogate_tool_name", Outcome.ERROR_TURN, lambda r, g: Reply.tool_call("get_acc\ud83dount", {})),
    Kind(
        "other_seats_tool",
        Outcome.ERROR_TURN,
        lambda r, g: Reply.tool_call(OTHER_TOOL[r], {"customer": "Ada"}),
        INTERACTIVE,
    ),
    Kind("empty_content", Outcome.ERROR_TURN, lambda r, g: Reply.empty()),
    Kind("whitespace_content", Outcome.ERROR_TURN, lambda r, g: Reply.text(" \n\t ")),
    Kind(
        "text_and_call",
        Outcome.ERROR_TURN,
        lambda r, g: Reply.tool_call(ROLE_TOOL[r], {}, content="Let me check that."),
    ),
    Kind(
        "call_and_unknown_call",
        Outcome.ERROR_TURN,
        lambda r, g: Reply.parallel_tool_calls(
            [ScriptedToolCall(name=ROLE_TOOL[r]), ScriptedToolCall(name="reboot_universe")]
        ),
    ),
    Kind("solo_message", Outcome.ERROR_TURN, lambda r, g: Reply.text("I will fix it."), frozenset({"solo"})),
    Kind(
        "end_call_with_another_call",
        Outcome.ERROR_TURN,
        lambda r, g: Reply.parallel_tool_calls(
            [ScriptedToolCall(name="end_call"), ScriptedToolCall(name="plug_in")]
        ),
        frozenset({"user"}),
    ),
    # Model faults the world refuses: failed tool calls.
    Kind("wrong_argument_type", Outcome.TOOL_ERROR, lambda r, g: _tool(r, {"customer": 42}), AGENT_SIDE),
    Kind("missing_argument", Outcome.TOOL_ERROR, lambda r, g: _tool(r, {}), AGENT_SIDE),
    Kind("unexpected_argument", Outcome.TOOL_ERROR, lambda r, g: _tool(r, {"customer": "Ada", "zzz": 1})),
    Kind("unknown_customer", Outcome.TOOL_ERROR, lambda r, g: _tool(r, {"customer": "Bob"}), AGENT_SIDE),
    # Hostile but usable: accepted turns.
    Kind("lone_surrogate_text", Outcome.ACCEPTED, _decorated(" \ud83d and \udc00"), needs_text=True),
    Kind("nul_bytes", Outcome.ACCEPTED, _decorated(" \x00\x00 end"), needs_text=True),
    Kind(
        "escape_sequences",
        Outcome.ACCEPTED,
        _decorated("\x1b[2J\x1b]0;pwned\x07\x1b[31m red"),
        needs_text=True,
    ),
    Kind("bidi_and_zero_width", Outcome.ACCEPTED, _decorated(" \u202e\u200b\ufeff txet"), needs_text=True),
    Kind("huge_content", Outcome.ACCEPTED, _decorated(" " + "x" * 100_000), needs_text=True),
    Kind("missing_usage", Outcome.ACCEPTED, lambda r, g: Reply.raw(completion_body(g, None))),
    Kind(
        "negative_usage",
        Outcome.ACCEPTED,
        lambda r, g: Reply.raw(
            completion_body(g, {"prompt_tokens": -5, "completion_tokens": -3, "total_tokens": -8})
        ),
    ),
    Kind(
        "json_labelled_text_plain",
        Outcome.ACCEPTED,
        lambda r, g: Reply.raw(completion_body(g, GOOD_USAGE), content_type="text/plain"),
    ),
    # Provider faults the client retries.
    *(
        Kind(f"http_{code}", Outcome.TRANSIENT, lambda r, g, c=code: Reply.error(c))
        for code in (408, 429, 500, 502, 503)
    ),
    Kind(
        "html_error_page",
        Outcome.TRANSIENT,
        lambda r, g: Reply.raw(
            "<html><body><h1>502 Bad Gateway</h1></body></html>", status=502, content_type="text/html"
        ),
    ),
    Kind(
        "html_with_status_200",
        Outcome.TRANSIENT,
        lambda r, g: Reply.raw("<!DOCTYPE html><html><body>Sign in</body></html>", content_type="text/html"),
    ),
    Kind("non_json_body", Outcome.TRANSIENT, lambda r, g: Reply.raw("upstream said no")),
    Kind("truncated_body", Outcome.TRANSIENT, lambda r, g: Reply.raw(BROKEN[: len(BROKEN) // 2])),
    Kind("empty_body", Outcome.TRANSIENT, lambda r, g: Reply.raw("")),
    Kind("json_array_body", Outcome.TRANSIENT, lambda r, g: Reply.raw("[1, 2, 3]")),
    Kind("empty_choices", Outcome.TRANSIENT, lambda r, g: Reply.without_choices()),
    Kind(
        "null_message",
        Outcome.TRANSIENT,
        lambda r, g: Reply.raw(
            json.dumps({"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]})
        ),
    ),
    Kind("connection_reset", Outcome.TRANSIENT, lambda r, g: Reply.dropped()),
    Kind(HANG, Outcome.TRANSIENT, lambda r, g: Reply.text("too late", delay=TIMEOUT_S * 5)),
    # A good answer sent late: booked as a turn when sent, and as lost once the client asks again.
    Kind(LATE, Outcome.GOOD, lambda r, g: g.model_copy(update={"delay": TIMEOUT_S * 1.25})),
]
FATAL_KINDS = [
    Kind("http_400", Outcome.FATAL, lambda r, g: Reply.error(400)),
    Kind("http_404", Outcome.FATAL, lambda r, g: Reply.error(404)),
    Kind("outage", Outcome.FATAL, lambda r, g: Reply.error(503)),
]
"""Fatal faults; 401 is left out on purpose (an authentication failure stops the whole run)."""
LOST = Kind("lost", Outcome.LOST, lambda r, g: g)
"""What an answer is booked as once the seat's next request shows the client asked for it again."""


@dataclass
class SeatState:
    """What the provider has sent one seat of one simulation."""

    requests: int = 0
    good: int = 0
    transient_streak: int = 0
    streak_before: int = 0
    """`transient_streak` before the last response, to restore when that response turns out lost."""
    conversation: str | None = None
    """A digest of the last request's messages: the same again means the client retried it."""
    hung: bool = False
    """A hang or a late answer costs a whole timeout, so each seat of a simulation gets at most one."""
    doomed_at: int | None = None
    fatal: Kind | None = None


@dataclass
class Book:
    """Every response sent, by simulation (seed) and role, in order."""

    sent: dict[int, list[tuple[str, Kind | None]]] = field(default_factory=dict)

    def add(self, seed: int, role: str, kind: Kind | None) -> None:
        self.sent.setdefault(seed, []).append((role, kind))


class FuzzProvider:
    """Answers every seat of every simulation, faulty at `FAULT_RATE`; `doom` sends some simulations a fatal
    fault. Decisions depend only on (epoch, seed, role, request number), so a run is reproducible."""

    def __init__(self, *, hangs: bool) -> None:
        self.epoch = ""
        self.doom = False
        self.hangs = hangs
        self.book = Book()
        self._seats: dict[tuple[int, str], SeatState] = {}
        self._lock = threading.Lock()

    def begin(self, epoch: str, *, doom: bool) -> Book:
        """Start answering a new run (or resume) afresh; returns the book of what it will send."""
        with self._lock:
            self.epoch, self.doom, self.book, self._seats = epoch, doom, Book(), {}
            return self.book

    def __call__(self, request: ChatRequest) -> Reply:
        assert request.seed is not None
        role = (
            "user"
            if "end_call" in request.tool_names
            else "solo"
            if "done" in request.tool_names
            else "agent"
        )
        conversation = hashlib.sha256(json.dumps(request.messages, sort_keys=True).encode()).hexdigest()
        with self._lock:
            state = self._seats.get((request.seed, role))
            if state is None:
                state = self._seats[(request.seed, role)] = self._new_state(request.seed, role)
            if conversation == state.conversation:
                self._retried(request.seed, role, state)
            state.conversation = conversation
            kind = self._choose(request.seed, role, state)
            self.book.add(request.seed, role, kind)
            good = SCRIPTS[role][min(state.good, len(SCRIPTS[role]) - 1)]
            if kind is None or kind.outcome.is_usable:
                state.good += 1
        return good if kind is None else kind.make(role, good)

    def _retried(self, seed: int, role: str, state: SeatState) -> None:
        """The client asks again for what it last asked: an answer it was sent never became a turn."""
        sent = self.book.sent[seed]
        index = max(number for number, (sent_to, _) in enumerate(sent) if sent_to == role)
        last = sent[index][1]
        if last is not None and not last.outcome.is_turn:
            return  # a provider fault, retried as booked
        sent[index] = (role, LOST)
        state.transient_streak = state.streak_before + 1
        if last is None or last.outcome.is_usable:
            state.good -= 1

    def _new_state(self, seed: int, role: str) -> SeatState:
        state = SeatState()
        draw = random.Random(f"{self.epoch}:{seed}:doom")
        if self.doom and role != "user" and draw.random() < DOOMED_SHARE:
            state.doomed_at = draw.randrange(6)
            state.fatal = draw.choice(FATAL_KINDS)
        return state

    def _choose(self, seed: int, role: str, state: SeatState) -> Kind | None:
        """The kind of the next response (None: the good reply)."""
        number = state.requests
        state.requests += 1
        state.streak_before = state.transient_streak
        if state.fatal is not None and state.doomed_at is not None and number >= state.doomed_at:
            return state.fatal
        draw = random.Random(f"{self.epoch}:{seed}:{role}:{number}")
        if draw.random() >= FAULT_RATE:
            state.transient_streak = 0
            return None
        good = SCRIPTS[role][min(state.good, len(SCRIPTS[role]) - 1)]
        is_text = good.content is not None and not good.tool_calls
        usable = [
            kind
            for kind in KINDS
            if role in kind.roles
            and (is_text or not kind.needs_text)
            and (kind.outcome is not Outcome.TRANSIENT or state.transient_streak < MAX_TRANSIENT_STREAK)
            and (kind.name not in SLOW or (self.hangs and not state.hung))
        ]
        kind = draw.choice(usable)
        state.hung = state.hung or kind.name in SLOW
        state.transient_streak = state.transient_streak + 1 if kind.outcome is Outcome.TRANSIENT else 0
        return kind


SEAT_OF_ROLE = {"agent": Side.AGENT, "solo": Side.AGENT, "user": Side.USER}


def problems_of(record: SimulationRecord, sent: list[tuple[str, Kind | None]]) -> list[str]:
    """How a simulation's record disagrees with the responses its seats were sent."""
    where = f"{record.task_id}/{record.trial}"
    found: list[str] = []
    outcomes = [Outcome.GOOD if kind is None else kind.outcome for _, kind in sent]
    fatal = Outcome.FATAL in outcomes
    if fatal != (record.termination is TerminationReason.INFRASTRUCTURE_ERROR) or fatal != record.excluded:
        found.append(f"{where}: fatal fault sent: {fatal}, termination {record.termination}")
    if fatal:
        return found
    trajectory = record.trajectory
    if trajectory is None:
        return [f"{where}: no trajectory"]
    turns = sum(outcome.is_turn for outcome in outcomes)
    if trajectory.steps != turns:
        found.append(f"{where}: {trajectory.steps} steps for {turns} model answers")
    for seat in (Side.AGENT, Side.USER):
        mine = [(kind.outcome if kind else Outcome.GOOD) for role, kind in sent if SEAT_OF_ROLE[role] is seat]
        entries = [entry for entry in trajectory.entries if entry.seat is seat]
        rejected = sum(entry.kind is EntryKind.REJECTED_REPLY for entry in entries)
        failed = sum(
            entry.kind is EntryKind.TOOL_RESULT and not (entry.result and entry.result.ok)
            for entry in entries
        )
        calls = record.usage.get(seat)
        expected = {
            "rejected replies": (rejected, mine.count(Outcome.ERROR_TURN)),
            "failed tool calls": (failed, mine.count(Outcome.TOOL_ERROR)),
            "model calls": (calls.calls if calls else 0, sum(outcome.is_turn for outcome in mine)),
        }
        for name, (got, want) in expected.items():
            if got != want:
                found.append(f"{where}: {seat.value} {name}: {got}, expected {want}")
    if any(usage.prompt_tokens < 0 or usage.completion_tokens < 0 for usage in record.usage.values()):
        found.append(f"{where}: negative token counts")
    broken = any(
        _longest_error_streak(
            [kind.outcome if kind else Outcome.GOOD for role, kind in sent if SEAT_OF_ROLE[role] is seat]
        )
        >= MAX_ACTOR_RETRIES
        for seat in (Side.AGENT, Side.USER)
    )
    if broken != (record.termination is TerminationReason.ACTOR_ERROR):
        found.append(
            f"{where}: {MAX_ACTOR_RETRIES} error turns in a row: {broken}, termination {record.termination}"
        )
    if record.termination in {TerminationReason.CONTEXT_OVERFLOW, TerminationReason.INFRASTRUCTURE_ERROR}:
        found.append(f"{where}: model faults only, yet {record.termination}")
    return found


def _longest_error_streak(outcomes: list[Outcome]) -> int:
    streak = longest = 0
    for outcome in outcomes:
        if outcome.is_turn:
            streak = streak + 1 if outcome is Outcome.ERROR_TURN else 0
            longest = max(longest, streak)
    return longest


@dataclass
class Tally:
    """What the fuzzing sent and found, over every run."""

    kinds: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[Outcome] = field(default_factory=Counter)
    lost: int = 0
    """Answers the client gave up on and asked for again (late on a loaded machine)."""
    simulations: int = 0
    infrastructure: int = 0
    problems: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    def book(self, provider: FuzzProvider) -> None:
        for sent in provider.book.sent.values():
            for _, kind in sent:
                if kind is LOST:
                    self.lost += 1
                elif kind is not None:
                    self.kinds[kind.name] += 1
                    self.outcomes[kind.outcome] += 1

    @property
    def faulty(self) -> int:
        return sum(self.kinds.values())


MAX_RETRIES = 4
"""Retries per call: with no backoff a time budget alone would let a doomed call retry thousands of times."""


def invoke(arguments: list[str], provider: FuzzProvider, tally: Tally, what: str) -> None:
    """One `tau2 run`; a non-zero exit or an exception is a crash."""
    with call_settings(retry=RetryPolicy(base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)):
        result = CliRunner().invoke(app, arguments)
    tally.book(provider)
    if result.exit_code != 0 or result.exception is not None:
        tally.crashes.append(f"{what}: exit {result.exit_code}: {result.output[-2000:]} {result.exception!r}")


def fuzz_run(tmp_path: Path, transport: str, mode: str, simulations: int, tally: Tally) -> None:
    """A run of `simulations` fuzzed simulations, then its resume; both checked against what was sent."""
    name = f"{transport}-{mode}"
    tasks = [BOTH.model_copy(update={"id": f"{name}-{number}"}) for number in range(simulations)]
    suite = tmp_path / f"{name}.json"
    Suite(name=name, domain="mock", tasks=tasks).save(suite)
    out = tmp_path / name
    provider = FuzzProvider(hangs=transport == "native")  # litellm's share is kept small: it is slow
    with ScriptedOpenAIServer(provider) as server:
        arguments = ["run", "--suite", str(suite), "--mode", mode, "--out", str(out), "--concurrency", "32"]
        for seat in ["agent"] if mode == "solo" else ["agent", "user"]:
            arguments += [f"--{seat}-model", "openai/fuzz", f"--{seat}-api-base", server.base_url]
            arguments += [f"--{seat}-arg", "api_key=sk-fuzz", f"--{seat}-transport", transport]
            arguments += [f"--{seat}-timeout", str(TIMEOUT_S)]
            arguments += [f"--{seat}-max-retries", str(MAX_RETRIES)]  # retries are immediate here
        first = provider.begin(f"{name}:first", doom=True)
        invoke(arguments, provider, tally, f"{name} first run")
        records, _ = read_records(out / "results.jsonl")
        second = provider.begin(f"{name}:resume", doom=False)
        seats = ["agent"] if mode == "solo" else ["agent", "user"]
        keys = [option for seat in seats for option in (f"--{seat}-arg", "api_key=sk-fuzz")]  # never stored
        invoke(["run", "--resume", "--out", str(out), *keys], provider, tally, f"{name} resume")
    tally.simulations += len(records)
    if len(records) != simulations:
        tally.problems.append(f"{name}: {len(records)} records for {simulations} simulations")
    for record in records:
        tally.problems.extend(problems_of(record, first.sent.get(record.seed, [])))
    infrastructure = sorted((record.task_id, record.trial) for record in records if record.excluded)
    everything, _ = read_records(out / "results.jsonl")
    rerun = everything[len(records) :]
    tally.simulations += len(rerun)
    if sorted((record.task_id, record.trial) for record in rerun) != infrastructure:
        tally.problems.append(
            f"{name}: the resume re-ran {len(rerun)} simulations, "
            f"not the {len(infrastructure)} infrastructure errors"
        )
    for record in rerun:
        tally.problems.extend(problems_of(record, second.sent.get(record.seed, [])))
    if any(record.excluded for record in load_run(out).records):
        tally.problems.append(f"{name}: infrastructure errors left after a resume without fatal faults")
    tally.infrastructure += len(infrastructure)


def test_model_fuzz(tmp_path: Path, reliability_scale: ReliabilityScale) -> None:
    tally = Tally()
    pick = reliability_scale.pick
    for transport, mode, simulations in [
        ("native", "interactive", pick(30, 120)),
        ("native", "solo", pick(10, 60)),
        ("litellm", "interactive", pick(6, 40)),
        ("litellm", "solo", pick(4, 20)),
    ]:
        fuzz_run(tmp_path, transport, mode, simulations, tally)
    model = sum(count for outcome, count in tally.outcomes.items() if outcome.is_model_fault)
    provider = tally.outcomes[Outcome.TRANSIENT] + tally.outcomes[Outcome.FATAL]
    print(
        f"\nRELIABILITY: model fuzz: {tally.faulty} faulty responses of {len(tally.kinds)} kinds over "
        f"{tally.simulations} simulations; model faults {model}, provider faults {provider}, "
        f"answers lost to the timeout {tally.lost}, misclassified {len(tally.problems)}, "
        f"crashes {len(tally.crashes)}"
    )
    assert tally.crashes == []
    assert tally.problems == []
    assert len(tally.kinds) >= 30, sorted(tally.kinds)
    assert tally.faulty >= pick(200, 1000)
    assert tally.infrastructure > 0 and tally.outcomes[Outcome.FATAL] > 0
    assert tally.lost > 0, "late answers were sent, and booked as lost once retried"
