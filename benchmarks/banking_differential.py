"""Random differential testing of the banking tools against τ²-bench's own banking environment.

From a seed, sessions of random tool calls are generated — every visible tool of both seats, the hidden
tools through their wrappers (unlocked or not, handed over or not) with valid and wrongly typed arguments
(numbers written as text, `1` for `true`, nulls, lists, missing and extra keys, JSON that is not an
object or not JSON), the searches with odd `k` values, and `grep` with blank, invalid and odd patterns —
and each call runs in τ²-bench's environment (`TAU2BENCH_PYTHON`, a Python with τ²-bench installed) and in
ours. A call agrees when both answer the same text (τ²-bench's searches end with their wall-clock time,
which is cut) with the same error flag, and both databases then have the same hash (τ²-bench's, over
sorted-key JSON). These differences are explained rather than counted:

- both sides fail the call as an error and change nothing: the wording is each side's own (τ²-bench
  shows the Python exception's text);
- tau2 refuses arguments of a visible tool that do not fit the tool's schema (say `k` of `"5"`), where
  τ²-bench passes them to its Python function; only read-only tools are given such arguments, so the
  databases stay comparable;
- τ²-bench never answers a `grep` pattern its backtracking search cannot finish (it is given
  `--patience` seconds, then started afresh), where tau2 answers;
- tau2 refuses a `grep` pattern only a backtracking search can follow (a backreference beside a repeat);
- a `grep` pattern that can match the empty string counts differently where Python, after an empty
  match, tries again at the same place for a longer one (`patterns.py` says why).

Every other difference is unexplained: it is printed, and a session whose databases came apart ends
and a new one starts. τ²-bench's dense search and shell cannot run here (an embeddings service, its
sandbox), so `alltools` sessions use its BM25 search only.

Run from the repository root:
`TAU2BENCH_PYTHON=/path/to/python python benchmarks/banking_differential.py --data-dir DIR [--audit]
[--calls 2000] [--seed 1]`, DIR being τ²-bench's banking data directory (`db.json`, `documents/`). `--audit`
first calls every hidden tool with each of its parameters set in turn to each trap value. Exits 1 when a
difference is unexplained.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import subprocess
import sys
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tau2 import World, get_domain
from tau2.domains.banking_knowledge.discoverable import AGENT_HIDDEN, USER_HIDDEN, HiddenTool, cards
from tau2.testing import ScriptedOpenAIServer
from tau2.world import EmbedderConfig, RetrievalConfig, Side, ToolResult, state_digest

TAU2BENCH_SIDE = Path(__file__).with_name("_tau2bench_banking_side.py")
TIMING = re.compile(r"\n\n\[Timing: [^\]]*\]$")
SCHEMA_REFUSAL = "invalid arguments for "
UNSUPPORTED = "the pattern uses "
READ_ONLY_VISIBLE = {
    "get_current_time",
    "get_user_information_by_id",
    "get_user_information_by_name",
    "get_user_information_by_email",
    "get_referrals_by_user",
    "get_credit_card_transactions_by_user",
    "get_credit_card_accounts_by_user",
    "list_discoverable_agent_tools",
    "list_discoverable_user_tools",
    "KB_search",
    "KB_search_bm25",
    "grep",
}
NUMBERS = [0, 1, 2, 3, 5, 10, 14.5, 25, 50, 99.99, 100, 250.75, 500, 1000, 5000, 25000, -1, -20, 0.001, 1e9]
ODD = [None, [], {}, "", [1], {"a": 1}, True, False, "100", "abc", "1e3", " 5 "]
WORDS = ["fee", "credit card", "dispute", "debit", "ATM", "savings account", "wire", "overdraft", "Gold"]
PATTERNS = [
    *WORDS,
    "fee|charge",
    "credit.*card",
    r"\bATM\b",
    r"\d+ days",
    "^#",
    r"\$\d+",
    r"(?i)FEE",
    "reward[s]?",
    "(",
    "[abc",
    "*fee",
    "+",
    ")",
    "",
    "   ",
    ".",
    "a*",
    "(|a)",
    "\\",
    "'",
    '"',
    "CO₂",
    r"\w+₂",
    r"fee\.$",
    r"(\w+\s?)*zzz$",
    "x{2,1}",
    r"(fee)\1",
    "(?=fee)",
]
QUERIES = [*WORDS, "", "   ", "lost debit card replacement", "zzzz qqqq", "Fee FEE fee", "?", "a"]
KS = [10, 20, 5, 1, 0, -2, -20, 3, 100]


@dataclass
class Pools:
    """Values from the database that make calls act: ids of each kind, names, emails."""

    by_name: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, data_dir: Path) -> Pools:
        db = json.loads((data_dir / "db.json").read_text())

        def ids(table: str) -> list[str]:
            return list(db.get(table, {}).get("data", {}))

        users = db["users"]["data"].values()
        pools = {
            "user_id": ids("users"),
            "account_id": ids("accounts"),
            "source_account_id": ids("accounts"),
            "destination_account_id": ids("accounts"),
            "checking_account_id": ids("accounts"),
            "card_id": ids("debit_cards"),
            "credit_card_account_id": ids("credit_card_accounts"),
            "transaction_id": ids("credit_card_transaction_history")
            + ids("bank_account_transaction_history"),
            "customer_name": [user["name"] for user in users],
            "full_name": [user["name"] for user in users],
            "name": [user["name"] for user in users],
            "email": [user["email"] for user in users],
            "new_email": ["new@example.com"],
            "card_type": ["Gold Rewards Card", "EcoCard", "Platinum Rewards Card", "Iron Card"],
            "credit_card_type": ["Gold Rewards Card", "Silver Rewards Card", "Bogus Card"],
            "card_name": ["Gold Rewards Card"],
            "category": ["Travel", "Dining", "Software"],
            "account_type": ["checking", "savings", "business_checking", "business_savings", "brokerage"],
        }
        for tool in [*AGENT_HIDDEN.values(), *USER_HIDDEN.values()]:
            side = cards().agent if tool.name in AGENT_HIDDEN else cards().user
            for parameter in side[tool.name].parameters:
                found = re.findall(r"'([A-Za-z_]+)'", parameter.description)
                found += re.findall(r"\b([A-Z]{4,})\b", parameter.description)
                if found:
                    pools.setdefault(parameter.name, []).extend(found)
        return cls(pools)

    def pick(self, rng: random.Random, name: str) -> Any:
        values = self.by_name.get(name)
        if values and rng.random() < 0.85:
            return rng.choice(values)
        return rng.choice(["x", "unknown_id", "11/14/2025", "123 Main St", "yes", "other"])


def _kind(annotation: Any) -> str:
    """'str', 'number', 'int', 'bool' or 'any' for a hidden tool's parameter annotation."""
    text = str(annotation)
    for name, kind in (("bool", "bool"), ("float", "number"), ("int", "int"), ("str", "str")):
        if name in text:
            return kind
    return "any"


def hidden_arguments(rng: random.Random, pools: Pools, tool: HiddenTool) -> dict[str, Any]:
    """Arguments for a hidden tool: mostly well typed, with traps, now and then a key left out or added."""
    hints = typing.get_type_hints(tool.function)
    arguments: dict[str, Any] = {}
    for parameter in tool.parameters:
        if rng.random() < 0.06:
            continue
        kind = _kind(hints.get(parameter.name, Any))
        roll = rng.random()
        if roll < 0.62:
            if kind == "bool":
                value: Any = rng.choice([True, False])
            elif kind in ("number", "int"):
                value = rng.choice(NUMBERS)
            else:
                value = pools.pick(rng, parameter.name)
        elif roll < 0.8:
            if kind == "bool":
                value = rng.choice([1, 0, "true", "yes", None])
            elif kind in ("number", "int"):
                value = rng.choice([str(rng.choice(NUMBERS)), True, None, "1,000", "$50"])
            else:
                value = rng.choice([rng.choice(NUMBERS), True, None])
        else:
            value = rng.choice(ODD)
        arguments[parameter.name] = value
    if rng.random() < 0.04:
        arguments["unexpected"] = 1
    return arguments


def arguments_text(rng: random.Random, arguments: dict[str, Any]) -> str:
    """The arguments as the wrappers take them (a JSON string), sometimes not an object or not JSON."""
    roll = rng.random()
    if roll < 0.03:
        return rng.choice(["{bad", "", "[]", '"text"', "5", "null", '["user_id"]', "{}"])
    text = json.dumps(arguments)
    if rng.random() < 0.3:  # integers spelt as floats: both spellings read as floats
        text = re.sub(r"(?<![\w.])(\d+)(?![\w.])", r"\1.0", text)
    return text


@dataclass
class Session:
    """What a session's calls may refer to: the configuration and the tools unlocked and handed over."""

    variant: str
    unlocked: list[str] = field(default_factory=list)
    given: list[str] = field(default_factory=list)


def next_call(rng: random.Random, pools: Pools, session: Session) -> tuple[str, str, dict[str, Any]]:
    """(requestor, tool, arguments) of a random call."""
    agent_tools = sorted(AGENT_HIDDEN)
    user_tools = sorted(USER_HIDDEN)
    roll = rng.random()
    if roll < 0.12:
        name = rng.choice([*agent_tools, "downgrade_credit_card_3847", "nope"])
        if name in AGENT_HIDDEN:
            session.unlocked.append(name)
        return "assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": name}
    if roll < 0.42:
        name = (
            rng.choice(session.unlocked)
            if session.unlocked and rng.random() < 0.9
            else rng.choice(agent_tools)
        )
        arguments = hidden_arguments(rng, pools, AGENT_HIDDEN[name])
        return (
            "assistant",
            "call_discoverable_agent_tool",
            {"agent_tool_name": name, "arguments": arguments_text(rng, arguments)},
        )
    if roll < 0.48:
        name = rng.choice([*user_tools, "nope"])
        if name in USER_HIDDEN:
            session.given.append(name)
            arguments = hidden_arguments(rng, pools, USER_HIDDEN[name])
        else:
            arguments = {}
        return (
            "assistant",
            "give_discoverable_user_tool",
            {
                "discoverable_tool_name": name,
                "arguments": arguments_text(rng, arguments),
            },
        )
    if roll < 0.58:
        name = rng.choice(session.given) if session.given and rng.random() < 0.85 else rng.choice(user_tools)
        arguments = hidden_arguments(rng, pools, USER_HIDDEN[name])
        return (
            "user",
            "call_discoverable_user_tool",
            {"discoverable_tool_name": name, "arguments": arguments_text(rng, arguments)},
        )
    if roll < 0.72:
        return retrieval_call(rng, session)
    return visible_call(rng, pools)


def retrieval_call(rng: random.Random, session: Session) -> tuple[str, str, dict[str, Any]]:
    if session.variant == "alltools":
        k: Any = rng.choice(KS)
        if rng.random() < 0.1:
            k = rng.choice(["5", 2.0, True, None])  # not an integer: tau2 refuses by the schema
        arguments: dict[str, Any] = {"query": rng.choice(QUERIES)}
        if rng.random() < 0.9:
            arguments["k"] = k
        return "assistant", "KB_search_bm25", arguments
    if rng.random() < 0.5:
        return "assistant", "grep", {"pattern": rng.choice(PATTERNS)}
    return "assistant", "KB_search", {"query": rng.choice(QUERIES)}


def visible_call(rng: random.Random, pools: Pools) -> tuple[str, str, dict[str, Any]]:
    """A call of one of the always-visible tools, its arguments of the types its schema names (read-only
    tools sometimes get a number where text belongs)."""
    user = rng.choice(pools.by_name["user_id"] + ["nobody", 'quote"d'])
    calls: list[Callable[[], tuple[str, str, dict[str, Any]]]] = [
        lambda: ("assistant", "get_current_time", {}),
        lambda: ("assistant", "get_user_information_by_id", {"user_id": rng.choice([user, 5])}),
        lambda: (
            "assistant",
            "get_user_information_by_name",
            {"customer_name": pools.pick(rng, "customer_name")},
        ),
        lambda: ("assistant", "get_user_information_by_email", {"email": pools.pick(rng, "email")}),
        lambda: ("assistant", "get_referrals_by_user", {"user_id": user}),
        lambda: ("assistant", "get_credit_card_transactions_by_user", {"user_id": user}),
        lambda: ("assistant", "get_credit_card_accounts_by_user", {"user_id": user}),
        lambda: ("assistant", "list_discoverable_agent_tools", {}),
        lambda: ("user", "list_discoverable_user_tools", {}),
        lambda: ("assistant", "change_user_email", {"user_id": user, "new_email": "n@example.com"}),
        lambda: (
            "assistant",
            "transfer_to_human_agents",
            {"summary": "s", "reason": rng.choice(["other", "fraud_or_security_concern", "bogus"])},
        ),
        lambda: (
            "assistant",
            "log_verification",
            {
                "name": pools.pick(rng, "name"),
                "user_id": user,
                "address": "a",
                "email": "e",
                "phone_number": "p",
                "date_of_birth": "01/01/1990",
                "time_verified": rng.choice(["2025-11-14 03:40:00 EST", "now"]),
            },
        ),
        lambda: (
            "user",
            "apply_for_credit_card",
            {
                "card_type": pools.pick(rng, "card_type"),
                "customer_name": pools.pick(rng, "customer_name"),
                "annual_income": rng.choice(NUMBERS),
                "rho_bank_subscription": rng.choice([True, False]),
            },
        ),
        lambda: (
            "user",
            "submit_referral",
            {"user_id": user, "account_type": pools.pick(rng, "account_type")},
        ),
        lambda: ("user", "request_human_agent_transfer", {}),
        lambda: (
            "user",
            "submit_transaction",
            {
                "user_id": user,
                "credit_card_type": pools.pick(rng, "credit_card_type"),
                "merchant_name": "Shop",
                "amount": rng.choice(NUMBERS),
                "category": pools.pick(rng, "category"),
            },
        ),
    ]
    requestor, name, arguments = rng.choice(calls)()
    if name not in READ_ONLY_VISIBLE and any(
        not isinstance(value, str | bool | float | int) for value in arguments.values()
    ):
        raise AssertionError(name)
    return requestor, name, arguments


class Reference:
    """τ²-bench's environment in its own interpreter, one JSON line per request; a call it does not answer
    within `patience` seconds (a pattern its backtracking search never finishes) ends the interpreter."""

    def __init__(self, python: str, patience: float) -> None:
        self._python = python
        self._patience = patience
        self._process = self._start()

    def _start(self) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [self._python, str(TAU2BENCH_SIDE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "TAU2_DATA_DIR": os.environ.get("TAU2_DATA_DIR", str(Path.cwd()))},
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """τ²-bench's answer, or None when it gave none in time (it is then started afresh)."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        ready, _, _ = select.select([self._process.stdout], [], [], self._patience)
        if not ready:
            self._process.kill()
            self._process.wait()
            self._process = self._start()
            return None
        line = self._process.stdout.readline()
        if not line:
            raise SystemExit(
                "τ²-bench's side stopped (is TAU2BENCH_PYTHON a Python with τ²-bench and rank-bm25?)"
            )
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)


def ours(world: World, requestor: str, name: str, arguments: dict[str, Any]) -> ToolResult:
    side = Side.USER if requestor == "user" else Side.AGENT
    return world.call(side, name, arguments)


def verdict(mine: ToolResult, theirs: dict[str, Any] | None, same_hash: bool, call: Call) -> str:
    """`agree`, an explained kind of difference, or `unexplained`."""
    if theirs is None:
        if mine.error is None or mine.error.message.startswith(UNSUPPORTED):
            return "τ²-bench never answers (a pattern its backtracking search cannot finish); tau2 does"
        return "unexplained"
    if mine.error is not None and mine.error.message.startswith(UNSUPPORTED) and same_hash:
        return "pattern only a backtracking search follows: tau2 refuses it"
    their_text = (
        TIMING.sub("", theirs["content"]) if isinstance(theirs["content"], str) else theirs["content"]
    )
    if mine.error is None and not theirs["error"] and mine.content == their_text and same_hash:
        return "agree"
    if mine.error is not None and theirs["error"] and same_hash:
        return "both refuse (own wording)"
    if mine.error is not None and mine.error.message.startswith(SCHEMA_REFUSAL) and same_hash:
        return "schema refusal of a visible read tool"
    if call[1] == "grep" and same_hash and _matches_empty(call[2].get("pattern")):
        return "grep counts of a pattern matching the empty string (no second try after an empty match)"
    return "unexplained"


def _matches_empty(pattern: object) -> bool:
    """Whether a `grep` pattern can match the empty string, where the linear-time matcher does not try
    again for a longer match after an empty one (a documented difference)."""
    try:
        return isinstance(pattern, str) and re.compile(pattern, re.IGNORECASE).search("") is not None
    except re.error:
        return False


TRAPS: list[Any] = ["100", "abc", 1, 0, 2.5, -5, True, False, None, [], {"a": 1}, ""]
"""The values the audit gives each parameter of each hidden tool in turn."""


def audit_sessions(rng: random.Random, pools: Pools) -> Iterator[tuple[Setting, list[Call]]]:
    """One session per hidden tool: unlocked (or handed over), then called with well-typed arguments and
    with each parameter in turn set to each trap value (and left out)."""
    for name, tool in sorted(AGENT_HIDDEN.items()):
        calls: list[Call] = [("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": name})]
        for arguments in _audited(rng, pools, tool):
            calls.append(
                (
                    "assistant",
                    "call_discoverable_agent_tool",
                    {"agent_tool_name": name, "arguments": arguments},
                )
            )
        yield Setting("golden_retrieval", 10, [name] if tool.effect.value == "read" else []), calls
    for name, tool in sorted(USER_HIDDEN.items()):
        calls = [
            ("assistant", "give_discoverable_user_tool", {"discoverable_tool_name": name, "arguments": "{}"})
        ]
        for arguments in _audited(rng, pools, tool):
            calls.append(
                (
                    "user",
                    "call_discoverable_user_tool",
                    {"discoverable_tool_name": name, "arguments": arguments},
                )
            )
        yield Setting("golden_retrieval", 10, []), calls


def _audited(rng: random.Random, pools: Pools, tool: HiddenTool) -> Iterator[str]:
    hints = typing.get_type_hints(tool.function)
    for parameter in tool.parameters:
        for trap in [*TRAPS, "<left out>"]:
            arguments = _well_typed(rng, pools, tool, hints)
            if trap == "<left out>":
                arguments.pop(parameter.name, None)
            else:
                arguments[parameter.name] = trap
            yield json.dumps(arguments)


def _well_typed(rng: random.Random, pools: Pools, tool: HiddenTool, hints: dict[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for parameter in tool.parameters:
        kind = _kind(hints.get(parameter.name, Any))
        if kind == "bool":
            arguments[parameter.name] = rng.choice([True, False])
        elif kind in ("number", "int"):
            arguments[parameter.name] = rng.choice([5, 25, 100, 250.75, 1000])
        else:
            arguments[parameter.name] = pools.pick(rng, parameter.name)
    return arguments


def random_sessions(
    rng: random.Random, pools: Pools, length: int
) -> Iterator[tuple[Setting, Iterator[Call]]]:
    """Endless sessions of random calls under a random configuration."""
    read_tools = sorted(name for name, tool in AGENT_HIDDEN.items() if tool.effect.value == "read")
    while True:
        variant = rng.choice(["bm25_grep", "alltools"])
        setting = Setting(variant, rng.choice([10, 10, 5, 3]), rng.sample(read_tools, rng.randint(0, 4)))
        session = Session(variant)
        yield setting, (next_call(rng, pools, session) for _ in range(length))


@dataclass
class Setting:
    """A session's configuration: retrieval variant, its `top_k`, the read tools whose calls are logged."""

    variant: str
    top_k: int
    allowlist: list[str]


Call = tuple[str, str, dict[str, Any]]


class Comparison:
    """Both sides run the same calls; what agreed and what did not is counted."""

    def __init__(self, reference: Reference, data_dir: Path, embedder: EmbedderConfig, show: int) -> None:
        self.reference, self.data_dir, self.embedder, self.show = reference, data_dir, embedder, show
        self.counts: Counter[str] = Counter()
        self.by_tool: Counter[str] = Counter()
        self.domain = get_domain("banking_knowledge")

    @property
    def calls(self) -> int:
        return sum(self.counts.values())

    def session(self, setting: Setting, calls: Iterable[Call], budget: int) -> None:
        """Run up to `budget` calls on a fresh bank; stop where the two databases come apart."""
        assert self.domain.retrieval is not None
        embedder = self.embedder if setting.variant == "alltools" else None
        config = RetrievalConfig(name=setting.variant, top_k=setting.top_k, embedder=embedder)
        world = World.create(self.domain.retrieval.configure(config, self.data_dir), self.data_dir)
        world.state.set_read_log_allowlist(frozenset(setting.allowlist))
        start = self.reference.ask(
            {
                "op": "reset",
                "data_dir": str(self.data_dir),
                "variant": setting.variant,
                "top_k": setting.top_k,
                "allowlist": setting.allowlist,
            }
        )
        if start is None or start["hash"] != state_digest(world.state):
            raise SystemExit("the two sides start from different databases")
        for number, (requestor, name, arguments) in enumerate(calls):
            if number >= budget:
                return
            mine = ours(world, requestor, name, arguments)
            theirs = self.reference.ask(
                {"op": "call", "requestor": requestor, "name": name, "arguments": arguments}
            )
            same_hash = theirs is not None and theirs["hash"] == state_digest(world.state)
            kind = verdict(mine, theirs, same_hash, (requestor, name, arguments))
            self.counts[kind] += 1
            if theirs is None:
                return  # τ²-bench was started afresh: so is the session
            if kind == "unexplained":
                inner = arguments.get("agent_tool_name") or arguments.get("discoverable_tool_name") or ""
                self.by_tool[f"{name} {inner}".strip()] += 1
                if self.show > 0:
                    self.show -= 1
                    print(f"--- {requestor} {name} {json.dumps(arguments)[:400]}")
                    print(f"    tau2:     {mine.render()[:400]!r}")
                    print(
                        f"    τ²-bench: {'error ' if theirs['error'] else ''}{str(theirs['content'])[:400]!r}"
                    )
                    print(f"    databases {'agree' if same_hash else 'differ'}")
                if not same_hash:
                    return  # the sides have diverged: a new session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="random calls")
    parser.add_argument("--audit", action="store_true", help="first every hidden tool with each trap value")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path, required=True, help="τ²-bench's banking data directory")
    parser.add_argument(
        "--session", type=int, default=40, help="random calls per session (a fresh bank each)"
    )
    parser.add_argument("--show", type=int, default=10, help="unexplained differences printed in full")
    parser.add_argument("--patience", type=float, default=20.0, help="seconds τ²-bench may take for a call")
    options = parser.parse_args()
    python = os.environ.get("TAU2BENCH_PYTHON")
    if not python:
        raise SystemExit("set TAU2BENCH_PYTHON to a Python where τ²-bench (with rank-bm25) is installed")
    data_dir = options.data_dir.resolve()
    rng = random.Random(options.seed)
    pools = Pools.of(data_dir)
    reference = Reference(python, options.patience)
    with ScriptedOpenAIServer([]) as server:
        embedder = EmbedderConfig(model="scripted", api_base=server.base_url)
        comparison = Comparison(reference, data_dir, embedder, options.show)
        if options.audit:
            for setting, listed in audit_sessions(rng, pools):
                comparison.session(setting, listed, len(listed))
        audited = comparison.calls
        for setting, generated in random_sessions(rng, pools, options.session):
            if comparison.calls - audited >= options.calls:
                break
            comparison.session(setting, generated, options.calls - (comparison.calls - audited))
    reference.close()
    print(f"{comparison.calls} calls ({audited} in the audit), seed {options.seed}, data {data_dir}")
    for kind, count in comparison.counts.most_common():
        print(f"  {kind}: {count}")
    for tool, count in comparison.by_tool.most_common():
        print(f"    unexplained in {tool}: {count}")
    sys.exit(1 if comparison.counts["unexplained"] else 0)


if __name__ == "__main__":
    main()
