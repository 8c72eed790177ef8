"""The LLM judge of natural-language assertions: one model call grades every statement of a task against
the finished conversation. A panel of several judges grades the same statements; the first judge's
verdicts decide the reward, every judge's are kept for measuring their agreement.

Rules: the reply must be a JSON object whose `results` list holds exactly one entry per statement, in
order, each with a boolean `metExpectation`. An empty reply, text that is not such JSON, a missing or
extra entry, or a non-boolean verdict fails every statement of the call (it never passes). Verdicts are
cached per (simulation, statement), so the same simulation is never paid for twice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from tau2.episode._trajectory import EntryKind, Trajectory
from tau2.llm import AuthenticationError, ModelSpec, Usage, complete
from tau2.tasks import Task

SYSTEM_PROMPT = """You review a finished conversation between a customer-service agent and a customer.
You are given a list of expected outcomes. Decide for each expected outcome, on its own, whether the
conversation shows that it was met. Judge only from the conversation.

Answer with one JSON object and nothing else:
{"results": [{"expectedOutcome": "<the outcome, verbatim>", "reasoning": "<one or two sentences>",
"metExpectation": true or false}]}
Give exactly one result per expected outcome, in the order given."""


class Verdict(BaseModel):
    """The judge's decision on one statement; `passed` None = not judged."""

    model_config = ConfigDict(frozen=True)

    passed: bool | None
    reasoning: str | None = None
    problem: str | None = None
    """Why the reply could not be used (malformed or empty); the statement then fails."""


NOT_JUDGED = Verdict(passed=None, problem="not judged (no judge model)")
NOT_NEEDED = Verdict(passed=None, problem="not needed: a deterministic part of the reward had already failed")
"""The verdict on a statement the judge was not asked about because the reward was 0 whatever it said."""

JudgeSkip = Literal["deterministic_failure"]
"""Why a simulation's judge was not asked: a deterministic part of the reward (its ending, the database,
stored assertions, communicated information, reference actions) had already made the reward 0."""
DETERMINISTIC_FAILURE: Final[JudgeSkip] = "deterministic_failure"


class JudgeRecord(BaseModel):
    """One judge of a panel: its model, its verdict on each statement, and what its calls cost."""

    model_config = ConfigDict(frozen=True)

    model: str
    """The judge's model name."""
    verdicts: dict[str, Verdict] = Field(default_factory=dict)
    usage: Usage | None = None
    """None when nothing was asked (no statement, or every verdict already known)."""


class Judgement(BaseModel):
    """Verdicts by statement, and what the judges' calls cost (None when nothing was asked). With a panel
    of several judges, `verdicts` are the first judge's and `judges` holds every judge's own."""

    model_config = ConfigDict(frozen=True)

    verdicts: dict[str, Verdict] = Field(default_factory=dict)
    usage: Usage | None = None
    judges: list[JudgeRecord] = Field(default_factory=list)
    """Each judge of a panel of two or more (empty with one judge, whose verdicts are `verdicts`)."""
    skipped: JudgeSkip | None = None
    """Why no judge was asked although there were judges and statements (None: they were asked)."""


class NLJudge:
    """Judges statements with the model of `spec`, remembering every verdict per (simulation, statement)."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self._cache: dict[tuple[str, str], Verdict] = {}

    async def judge(self, simulation: str, trajectory: Trajectory, statements: Sequence[str]) -> Judgement:
        """Verdicts on `statements` for the simulation keyed `simulation`; asks the model only about
        statements it has not judged for that simulation yet."""
        unseen = list(dict.fromkeys(s for s in statements if (simulation, s) not in self._cache))
        usage: Usage | None = None
        if unseen:
            completion = await complete(
                self.spec,
                [
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": user_prompt(trajectory, unseen)},
                ],
                seed=None,
            )
            usage = completion.usage
            for statement, verdict in zip(unseen, parse_verdicts(completion.text, unseen), strict=True):
                self._cache[(simulation, statement)] = verdict
        return Judgement(
            verdicts={statement: self._cache[(simulation, statement)] for statement in statements},
            usage=usage,
        )


class JudgePanel:
    """Several judges of the same statements, asked at once: the first judge's verdicts decide the reward
    (so a run scores as it would with that judge alone), the others' are recorded beside them."""

    def __init__(self, judges: Sequence[NLJudge]) -> None:
        if not judges:
            raise ValueError("a panel needs at least one judge")
        self.judges = list(judges)

    @classmethod
    def of(cls, specs: Sequence[ModelSpec]) -> JudgePanel | None:
        """A panel of the models `specs` (None when there are none)."""
        return cls([NLJudge(spec) for spec in specs]) if specs else None

    async def judge(self, simulation: str, trajectory: Trajectory, statements: Sequence[str]) -> Judgement:
        """Every judge's verdicts on `statements`; the usage is the panel's, summed over its judges."""
        judgements = await asyncio.gather(
            *(judge.judge(simulation, trajectory, statements) for judge in self.judges)
        )
        if len(judgements) == 1:
            return judgements[0]
        usages = [judgement.usage for judgement in judgements if judgement.usage is not None]
        return Judgement(
            verdicts=judgements[0].verdicts,
            usage=sum(usages, Usage()) if usages else None,
            judges=[
                JudgeRecord(model=judge.spec.name, verdicts=judgement.verdicts, usage=judgement.usage)
                for judge, judgement in zip(self.judges, judgements, strict=True)
            ],
        )


async def judge_episode(
    judge: NLJudge | JudgePanel | None, task: Task, trajectory: Trajectory, seed: int | None
) -> Judgement:
    """The verdicts on a finished episode's natural-language assertions (none without a judge or
    statements); the simulation is keyed by task and seed, which the runner makes unique per trial.
    Refused credentials propagate, naming the judge, like a seat's."""
    statements = task.evaluation.nl_assertions or []
    if judge is None or not statements:
        return Judgement()
    try:
        return await judge.judge(simulation_key(task.id, seed), trajectory, statements)
    except AuthenticationError as error:
        raise AuthenticationError(f"judge: {error}") from error


def simulation_key(task_id: str, seed: int | None) -> str:
    """The key a judge's verdict cache files a simulation under: task and seed, unique per trial."""
    return f"{task_id}\x00{seed}"


def user_prompt(trajectory: Trajectory, statements: Sequence[str]) -> str:
    """The conversation (messages of both seats, the agent's tool calls and results) and the outcomes."""
    lines = []
    for entry in trajectory.entries:
        role = "agent" if entry.seat.value == "agent" else "customer"
        if entry.kind is EntryKind.MESSAGE and entry.text:
            lines.append(f"{role}: {entry.text}")
        elif entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
            call = entry.tool_call
            lines.append(f"{role} calls {call.name}({json.dumps(call.arguments, sort_keys=True)})")
        elif entry.kind is EntryKind.TOOL_RESULT and entry.result is not None:
            lines.append(f"tool result: {entry.result.render()}")
    outcomes = "\n".join(f"{number}. {statement}" for number, statement in enumerate(statements, start=1))
    return f"Conversation:\n{chr(10).join(lines)}\n\nExpected outcomes:\n{outcomes}"


def parse_verdicts(reply: str | None, statements: Sequence[str]) -> list[Verdict]:
    """One verdict per statement from the judge's reply; any malformation fails them all."""
    problem, results = _results(reply, len(statements))
    if problem is not None:
        return [Verdict(passed=False, problem=problem) for _ in statements]
    return [
        Verdict(passed=result["metExpectation"], reasoning=_text(result.get("reasoning")))
        for result in results
    ]


def _results(reply: str | None, expected: int) -> tuple[str | None, list[dict[str, Any]]]:
    """(problem, results): the reply's result entries when well formed, else why not."""
    if reply is None or not reply.strip():
        return "empty judge reply", []
    text = reply.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return "judge reply is not JSON", []
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        return "judge reply has no `results` list", []
    if len(results) != expected:
        return f"judge gave {len(results)} results for {expected} statements", []
    if not all(
        isinstance(result, dict) and isinstance(result.get("metExpectation"), bool) for result in results
    ):
        return "a judge result has no boolean `metExpectation`", []
    return None, results


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
