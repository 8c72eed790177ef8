"""Judging a finished episode: a binary reward from gating checks, plus diagnostics that never gate.

Gating: the episode ended properly (user stop, agent stop, transfer); every task assertion holds on the final
world and, for transfer tasks, a transfer happened.
Diagnostics: reference-action matching (name, compared arguments, seat), tool errors, steps, cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, SerializerFunctionWrapHandler, model_serializer

from tau2.episode._basis import FINISHED, CheckRecord, evaluate_basis
from tau2.episode._judge import JudgeRecord, JudgeSkip, Verdict
from tau2.episode._trajectory import EntryKind, ToolCall, Trajectory
from tau2.llm import Usage
from tau2.tasks import Domain, SolutionStep, Task, domain_of, run_assertions
from tau2.world import RetrievalConfig, RetrievalRecall, Side, World, WorldRules, refusal_of


class AssertionRecord(BaseModel):
    """One gating check and whether it held on the final world."""

    model_config = ConfigDict(frozen=True)

    side: Side
    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    expected: bool = True
    """What the assertion must return for the check to pass: True (it must hold) or False (it must not)."""
    passed: bool
    error: str | None = None
    observed: JsonValue = None
    """The value the assertion compared, when it reports one (records written before it existed: None)."""


class ActionRecord(BaseModel):
    """Diagnostics for one reference action: was it performed, and by the seat it names."""

    model_config = ConfigDict(frozen=True)

    action_id: str
    name: str
    side: Side
    performed: bool
    """Some call in the trajectory matched its name and compared arguments."""
    by_right_seat: bool
    """Such a call was made on the action's own side (a solo agent acting on the phone counts)."""


class EvaluationResult(BaseModel):
    """The verdict on one episode and the diagnostics recorded beside it."""

    model_config = ConfigDict(frozen=True)

    reward: float
    """1.0 when the gating checks hold and the episode ended properly (user stop, agent stop, or transfer),
    as τ²-bench scores; an episode cut off by the step or error limit scores 0 whatever the checks say."""
    outcome_passed: bool = False
    """The gating checks' raw outcome, before the ending is taken into account (a diagnostic)."""
    ended_properly: bool = False
    assertions: list[AssertionRecord] = Field(default_factory=list)
    assertions_passed: bool
    expects_transfer: bool = False
    transferred: bool = False
    """A call of the domain's transfer tool succeeded."""
    actions: list[ActionRecord] = Field(default_factory=list)
    tool_errors: int = 0
    checks: list[CheckRecord] = Field(default_factory=list)
    """Reward-basis components (tasks with a `reward_basis`), gating and diagnostic ones."""
    judge_usage: Usage | None = None
    """What the natural-language judge cost (a panel's judges summed); None when it was not asked."""
    judges: list[JudgeRecord] = Field(default_factory=list)
    """With a panel of two or more judges, each judge's verdicts (the first judge's decide the reward)."""
    judge_skipped: JudgeSkip | None = None
    """Why the judge was not asked although there were statements to judge: `deterministic_failure`, a
    deterministic part of the reward had already failed (the statements are then not needed); None when
    it was asked, or there was nothing to ask."""
    retrieval: RetrievalRecall | None = None
    """For domains with a knowledge base: the documents the task needs and those the agent was shown
    (recall@k, a diagnostic that never gates)."""

    @model_serializer(mode="wrap")
    def _omit_single_judge(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `judges` out without a panel and `judge_skipped` while the judge was asked, so results
        judged by one judge read as they always did."""
        data: dict[str, Any] = handler(self)
        if not data.get("judges"):
            data.pop("judges", None)
        if data.get("judge_skipped") is None:
            data.pop("judge_skipped", None)
        return data


def evaluate(
    task: Task,
    world: World,
    trajectory: Trajectory,
    *,
    data_dir: Path | None = None,
    nl_verdicts: Mapping[str, Verdict] | None = None,
    judge_usage: Usage | None = None,
    judges: list[JudgeRecord] | None = None,
    judge_skipped: JudgeSkip | None = None,
    retrieval: RetrievalConfig | None = None,
    reference: BaseModel | None = None,
) -> EvaluationResult:
    """Run the task's assertions on the final `world` and compare `trajectory` with the reference; a task
    with a reward basis is scored by it instead (`data_dir` rebuilds its reference end state). `retrieval`:
    the configuration the agent ran under, as the episode or the run's manifest settled it, for the recall
    diagnostic (None: no diagnostic); `judges`: every judge's verdicts, when a panel judged the
    natural-language assertions (`nl_verdicts` are its first judge's); `judge_skipped`: why the judge was
    not asked; `reference`: the reference end state when the world did not start from `data_dir`'s data (a
    renamed one, `tau2.rebrand.rename_identifiers`)."""
    assertions = [
        AssertionRecord(
            side=outcome.call.side,
            name=outcome.call.name,
            arguments=outcome.call.arguments,
            expected=outcome.expected,
            passed=outcome.passed,
            error=outcome.error,
            observed=outcome.observed,
        )
        for outcome in run_assertions(world, task.evaluation.assertions)
    ]
    assertions_passed = all(record.passed for record in assertions)
    transferred = _transferred(trajectory, world.domain)
    expects_transfer = task.evaluation.expects_transfer
    success = assertions_passed and (transferred or not expects_transfer)
    checks: list[CheckRecord] = []
    if task.evaluation.reward_basis is not None:
        verdict = evaluate_basis(
            task, world, trajectory, data_dir=data_dir, nl_verdicts=nl_verdicts, reference=reference
        )
        success, checks = verdict.reward >= 1.0, verdict.checks
    ended_properly = trajectory.termination in FINISHED
    return EvaluationResult(
        reward=1.0 if success and ended_properly else 0.0,
        outcome_passed=success,
        ended_properly=ended_properly,
        checks=checks,
        judge_usage=judge_usage,
        judges=judges or [],
        judge_skipped=judge_skipped,
        assertions=assertions,
        assertions_passed=assertions_passed,
        expects_transfer=expects_transfer,
        transferred=transferred,
        actions=match_actions(task.evaluation.solution, trajectory.tool_calls()),
        tool_errors=count_tool_errors(trajectory),
        retrieval=retrieval_recall(task, domain_of(world), trajectory, retrieval, data_dir),
    )


def retrieval_recall(
    task: Task,
    domain: Domain[Any],
    trajectory: Trajectory,
    retrieval: RetrievalConfig | None,
    data_dir: Path | None,
) -> RetrievalRecall | None:
    """Which of the documents the task needs the agent was shown, under its (settled) retrieval
    configuration; None for a domain without a knowledge base or without a configuration."""
    support, config = domain.retrieval, retrieval
    if support is None or config is None:
        return None
    calls = [
        (entry.tool_call.name, entry.tool_call.arguments, entry.result.content)
        for entry in trajectory.entries
        if entry.kind is EntryKind.TOOL_RESULT
        and entry.tool_call is not None
        and entry.tool_call.side is Side.AGENT
        and entry.result is not None
        and isinstance(entry.result.content, str)
    ]
    return RetrievalRecall(
        configuration=config.label(),
        k=config.top_k,
        required=support.required(task),
        retrieved=support.retrieved(config, data_dir, task, calls),
    )


def match_actions(solution: list[SolutionStep], calls: list[ToolCall]) -> list[ActionRecord]:
    """For each reference action: was it called (name and compared arguments), and on its own side.

    As in τ²-bench, any call counts whatever its result and order; `compare_args` None compares every
    argument the reference gives, `[]` the name only.
    """
    records = []
    for step in solution:
        keys = step.arguments.keys() if step.compare_args is None else step.compare_args
        matching = [
            call
            for call in calls
            if call.name == step.name
            and all(_equal(call.arguments.get(key), step.arguments.get(key)) for key in keys)
        ]
        records.append(
            ActionRecord(
                action_id=step.action_id,
                name=step.name,
                side=step.side,
                performed=bool(matching),
                by_right_seat=any(call.side is step.side for call in matching),
            )
        )
    return records


def _equal(actual: JsonValue | None, expected: JsonValue | None) -> bool:
    """JSON equality where 2 and 2.0 are equal but True is not 1."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    return actual == expected


def count_tool_errors(trajectory: Trajectory) -> int:
    """Tool calls of either seat whose result was an error."""
    return sum(
        1
        for entry in trajectory.entries
        if entry.kind is EntryKind.TOOL_RESULT and entry.result is not None and not entry.result.ok
    )


def _transferred(trajectory: Trajectory, domain: WorldRules[Any]) -> bool:
    """Whether a call of the transfer tool succeeded (made on the agent side, not refused)."""
    transfer_tool = domain.transfer_tool
    if transfer_tool is None:
        return False
    return any(
        entry.kind is EntryKind.TOOL_RESULT
        and entry.tool_call is not None
        and entry.tool_call.name == transfer_tool
        and entry.tool_call.side is Side.AGENT
        and entry.result is not None
        and refusal_of(domain, entry.result) is None
        for entry in trajectory.entries
    )
