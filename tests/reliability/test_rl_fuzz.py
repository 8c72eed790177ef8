"""RL environment fuzzing: random actions of every kind through the Gymnasium environment (either seat,
both modes) and the PettingZoo game (both modes), with refused reset options between episodes.

Actions: text in many scripts with control characters, terminal escapes and lone surrogates; text at and
past the action space's bound; values that are not text; JSON actions right and wrong (own, other seat's
and unknown tools, arguments of every JSON type, several calls, stops, text with calls, truncated JSON,
wrong types, nesting thousands deep, escaped lone surrogates). Each action is booked with what it must
become: refused (`ValueError` before it reaches the episode, which goes on as if it had not been sent),
or one turn of the seat. Every episode must end with a termination other than an infrastructure error;
every observation must lie in the observation space; each seat's observations must add up to exactly its
view of the trajectory; the trajectory must count one step per turn taken; and the result must serialise
as a run record. A refused reset option must not be in force at the next reset.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from reliability.conftest import ReliabilityScale

pytest.importorskip("gymnasium", reason="the `gym` extra (gymnasium) is not installed")
pytest.importorskip("pettingzoo", reason="the `pettingzoo` extra is not installed")

from tau2 import ActorSpec, EpisodeConfig, Mode, Side, Task, UserInputError, get_domain, make_actor
from tau2.episode import ActorTurn, Entry, EntryKind, EpisodeResult, SeatContext, TerminationReason
from tau2.rl import message_action, pettingzoo_env, stop_action, tool_call_action
from tau2.rl._actions import MAX_ACTION_CHARS, entry_view
from tau2.rl.gymnasium_env import DEFAULT_ACTORS, Tau2SeatEnv
from tau2.runner import episode_record

PIECES = [
    "lamp", "My lamp is dark.", " ", "\n", "\t", "\r", "é", "中文", "😀", "\u202e", "\u200b", "\x00", "\x7f",
    "\x1b[31m", "\x1b]8;;http://x\x07", "\ud800", "\udfff", "{", "}", '"', "\\", "[x](y)", "<b>", "Ω" * 3,
]  # fmt: skip
UNKNOWN_TOOLS = ["no_such_tool", "", "../etc/passwd", "x" * 300, "done"]
REFUSED_RESETS: list[dict[str, Any]] = [
    {"task_id": "no_such_task"},
    {"suite": "no_such_suite"},
    {"persona": "no_such_persona"},
    {"task_id": 7},
    {"suite": ["a"]},
]
GYM_REFUSED_RESETS: list[dict[str, Any]] = [{"mode": "sideways"}, {"mode": "solo", "task_id": "no_such_task"}]


@dataclass
class Tally:
    """What the fuzzing did and what went wrong."""

    kinds: Counter[str] = field(default_factory=Counter)
    refused = 0
    turns = 0
    error_turns = 0
    tool_errors = 0
    episodes = 0
    refused_resets = 0
    terminations: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


class Counting:
    """Passes an actor through, counting its turns, so each episode's step count can be checked."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.turns = 0

    async def start(self, context: SeatContext) -> None:
        self.turns = 0
        await self.inner.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        self.turns += 1
        turn: ActorTurn = await self.inner.act(observation)
        return turn


SURROGATES = {chr(0xD800), chr(0xDFFF)}
"""Lone surrogates: plain text keeps them (as U+FFFD); JSON escapes them, which refuses the action."""
JSON_PIECES = [piece for piece in PIECES if piece not in SURROGATES]


def text(rng: random.Random, size: int, pieces: list[str] = PIECES) -> str:
    return "".join(rng.choice(pieces) for _ in range(size))


def json_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, shallow."""
    kind = rng.randrange(8 if depth < 3 else 6)
    return [
        lambda: text(rng, rng.randrange(4), JSON_PIECES),
        lambda: rng.choice([0, -1, 2**70, -(2**70), 7]),
        lambda: rng.choice([0.5, -1e300, 1e-300]),
        lambda: rng.choice([True, False]),
        lambda: None,
        lambda: rng.choice(["Ada", "", "ADA", "Ada\x00"]),
        lambda: [json_value(rng, depth + 1) for _ in range(rng.randrange(3))],
        lambda: {text(rng, 1, JSON_PIECES): json_value(rng, depth + 1) for _ in range(rng.randrange(3))},
    ][kind]()


def arguments(rng: random.Random) -> dict[str, Any]:
    keys = ["customer", "phone_number", "mode", "x", ""]
    return {rng.choice(keys): json_value(rng) for _ in range(rng.randrange(3))}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


ActionMaker = Callable[[random.Random, list[str]], object]
REFUSED_KINDS = {"too_long", "not_text"}
"""Kinds the environments must refuse with `ValueError` before they reach the episode."""
KINDS: dict[str, ActionMaker] = {
    "text": lambda rng, tools: text(rng, rng.randrange(1, 12)),
    "empty": lambda rng, tools: rng.choice(["", " ", "\n\t"]),
    "at_the_bound": lambda rng, tools: "x" * (MAX_ACTION_CHARS - rng.randrange(3)),
    "too_long": lambda rng, tools: "y" * (MAX_ACTION_CHARS + 1 + rng.randrange(3 * MAX_ACTION_CHARS)),
    "not_text": lambda rng, tools: rng.choice([None, 0, 3.5, True, b"Hello", ["Hello"], {"message": "hi"}]),
    "message": lambda rng, tools: message_action(text(rng, rng.randrange(1, 12), JSON_PIECES)),
    "tool_call": lambda rng, tools: tool_call_action(rng.choice(tools), arguments(rng)),
    "calls": lambda rng, tools: json.dumps(
        {"tool_calls": [{"name": rng.choice(tools), "arguments": arguments(rng)} for _ in range(3)]}
    ),
    "stop": lambda rng, tools: stop_action(rng.choice([None, "Bye", text(rng, 3, JSON_PIECES)])),
    "text_and_calls": lambda rng, tools: json.dumps(
        {"message": "and", "tool_calls": [{"name": rng.choice(tools)}], "stop": rng.choice([True, False])}
    ),
    "truncated": lambda rng, tools: (a := tool_call_action(rng.choice(tools), arguments(rng)))[
        : rng.randrange(1, len(a))
    ],
    "wrong_shape": lambda rng, tools: rng.choice(
        [
            '{"tool_calls": "x"}',
            '{"message": 5}',
            '{"tool_calls": [{"name": 3}]}',
            '{"tool_calls": [{"name": "x", "arguments": []}]}',
            '{"tool_calls": [7]}',
            '{"speak": "hi"}',
            "{}",
            "{",
            '{"message": NaN}',
            '{"message": "a", "message": 1e999}',
            '{"stop": "yes"}',
            "{" + '"a":' * 50 + "1",
        ]
    ),
    "deep": lambda rng, tools: rng.choice(
        [
            '{"message": ' + nested(rng.randrange(33, 2000)) + "}",
            tool_call_action(rng.choice(tools), {"x": json.loads(nested(rng.randrange(33, 600)))}),
        ]
    ),
    "escaped_surrogate": lambda rng, tools: rng.choice(
        ['{"message": "\\ud800 hi"}', tool_call_action(rng.choice(tools), {"customer": "\udc00"})]
    ),
}


def check_observation(env_space: Any, observation: str, where: str, tally: Tally) -> list[dict[str, Any]]:
    if not env_space.contains(observation):
        tally.problems.append(f"{where}: an observation outside the observation space")
    parsed: list[dict[str, Any]] = json.loads(observation)
    return parsed


def check_result(
    task: Task, result: EpisodeResult | None, learners: set[Side], taken: int, tally: Tally, where: str
) -> None:
    """The end of an episode: its termination, step count, and its record's serialisation."""
    if result is None:
        tally.problems.append(f"{where}: the episode did not end")
        return
    tally.episodes += 1
    tally.terminations[result.termination.value] += 1
    if result.termination is TerminationReason.INFRASTRUCTURE_ERROR:
        tally.problems.append(f"{where}: infrastructure error: {result.trajectory.termination_detail}")
    if result.trajectory.steps != taken:
        tally.problems.append(f"{where}: {result.trajectory.steps} steps recorded for {taken} turns taken")
    for entry in result.trajectory.entries:
        if entry.seat in learners and entry.kind is EntryKind.ACTOR_ERROR:
            tally.error_turns += 1
        if entry.seat in learners and entry.result is not None and not entry.result.ok:
            tally.tool_errors += 1
    try:
        episode_record(task, 0, result).model_dump_json()
    except Exception as error:
        tally.problems.append(f"{where}: the record does not serialise: {error}")


WEIGHTS = {"text": 6, "message": 4, "tool_call": 6} | {"stop": 2}
"""Usable turns are drawn more often than faults, so that episodes last and reach every ending."""


def fuzz_action(rng: random.Random, tools: list[str], tally: Tally) -> tuple[str, object]:
    kind = rng.choices(list(KINDS), [WEIGHTS.get(kind, 1) for kind in KINDS])[0]
    tally.kinds[kind] += 1
    return kind, KINDS[kind](rng, tools)


def seat_tools(domain: str, schemas: list[dict[str, Any]]) -> list[str]:
    """Tool names to call: the seat's own (three times over, so they come up most), every tool of the
    domain, and names no seat holds."""
    own = [schema["function"]["name"] for schema in schemas]
    return 3 * own + [tool.name for tool in get_domain(domain).tools.tools()] + UNKNOWN_TOOLS


def refuse_a_reset(env: Any, options: dict[str, Any], tally: Tally, where: str) -> None:
    try:
        env.reset(seed=0, options=options)
    except UserInputError:
        tally.refused_resets += 1
    else:
        tally.problems.append(f"{where}: reset accepted the bad options {options}")


def gym_episode(rng: random.Random, domain: str, seat: Side, mode: Mode, tally: Tally) -> None:
    where = f"gymnasium {domain} {seat.value} {mode.value}"
    other = None
    if mode is Mode.INTERACTIVE:
        other = Counting(make_actor(ActorSpec(kind=DEFAULT_ACTORS[seat.other]), seat.other, mode))
    env = Tau2SeatEnv(
        domain, seat, mode=mode, other=other, config=EpisodeConfig(max_steps=rng.randrange(4, 30))
    )
    if rng.random() < 0.5:
        refuse_a_reset(env, rng.choice(REFUSED_RESETS + GYM_REFUSED_RESETS), tally, where)
    observation, info = env.reset(seed=rng.randrange(2**31))
    tools = seat_tools(domain, info["tool_schemas"])
    if info["mode"] != mode.value:
        tally.problems.append(f"{where}: a refused reset option stayed in force")
    seen = check_observation(env.observation_space, observation, where, tally)
    taken = 0
    while env.result is None:
        kind, action = fuzz_action(rng, tools, tally)
        try:
            observation, reward, terminated, truncated, _ = env.step(action)  # type: ignore[arg-type]
        except ValueError:
            if kind in REFUSED_KINDS:
                tally.refused += 1
            else:
                tally.problems.append(f"{where}: a {kind} action was refused: {action!r:.80}")
            continue
        except Exception as error:
            tally.problems.append(f"{where}: a {kind} action raised {type(error).__name__}: {error}")
            break
        if kind in REFUSED_KINDS:
            tally.problems.append(f"{where}: a {kind} action reached the episode: {action!r:.80}")
        taken += 1
        tally.turns += 1
        seen += check_observation(env.observation_space, observation, where, tally)
        if env.result is None and (terminated or truncated or reward != 0.0):
            tally.problems.append(f"{where}: a running episode reported its end")
    result = env.result
    env.close()
    check_result(env.task, result, {seat}, taken + (other.turns if other else 0), tally, where)
    if result is not None and seen != [entry_view(entry) for entry in result.trajectory.view(seat)]:
        tally.problems.append(f"{where}: the observations are not the seat's view of the trajectory")


def pettingzoo_episode(rng: random.Random, domain: str, mode: Mode, tally: Tally) -> None:
    where = f"pettingzoo {domain} {mode.value}"
    env = pettingzoo_env.env(
        domain=domain, mode=mode.value, config=EpisodeConfig(max_steps=rng.randrange(4, 30))
    )
    if rng.random() < 0.5:
        refuse_a_reset(env, rng.choice(REFUSED_RESETS), tally, where)
    env.reset(seed=rng.randrange(2**31))
    tools = {name: seat_tools(domain, env.infos[name]["tool_schemas"]) for name in env.agents}
    seen: dict[str, list[dict[str, Any]]] = {name: [] for name in env.possible_agents}
    taken = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        seen[agent] += check_observation(env.observation_space(agent), observation, where, tally)
        if terminated or truncated:
            env.step(None)
            continue
        while True:
            kind, action = fuzz_action(rng, tools[agent], tally)
            try:
                env.step(action)
            except ValueError:
                if kind in REFUSED_KINDS:
                    tally.refused += 1
                    continue
                tally.problems.append(f"{where}: a {kind} action was refused: {action!r:.80}")
            except Exception as error:
                tally.problems.append(f"{where}: a {kind} action raised {type(error).__name__}: {error}")
                return
            else:
                if kind in REFUSED_KINDS:
                    tally.problems.append(f"{where}: a {kind} action reached the episode: {action!r:.80}")
                taken += 1
                tally.turns += 1
            break
    result = env.unwrapped.result
    env.close()
    check_result(env.unwrapped.task, result, {Side(name) for name in seen}, taken, tally, where)
    for name, entries in seen.items():
        if result is not None and entries != [entry_view(e) for e in result.trajectory.view(Side(name))]:
            tally.problems.append(f"{where}: the {name} agent's observations are not its view")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rl_fuzz(reliability_scale: ReliabilityScale) -> None:
    rng = random.Random(20261126)
    tally = Tally()
    rounds = reliability_scale.pick(3, 40)
    for round_number in range(rounds):
        domain = "telecom" if round_number % 3 == 2 else "mock"
        for seat, mode in (
            (Side.AGENT, Mode.INTERACTIVE),
            (Side.USER, Mode.INTERACTIVE),
            (Side.AGENT, Mode.SOLO),
        ):
            for _ in range(3):
                gym_episode(rng, domain, seat, mode, tally)
        for mode in Mode:
            for _ in range(2):
                pettingzoo_episode(rng, domain, mode, tally)
    actions = sum(tally.kinds.values())
    print(
        f"\nRELIABILITY: rl fuzz: {actions} actions of {len(tally.kinds)} kinds over {tally.episodes} "
        f"episodes (Gymnasium both seats and modes, PettingZoo both modes), {tally.refused_resets} refused "
        f"resets; {tally.refused} refused before the episode, {tally.turns} turns ({tally.error_turns} error "
        f"turns, {tally.tool_errors} failed tool calls); endings {dict(sorted(tally.terminations.items()))}; "
        f"problems {len(tally.problems)}"
    )
    assert tally.problems == []
    assert set(tally.kinds) == set(KINDS), "every kind of action was tried"
