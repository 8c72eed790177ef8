"""Judging a task by its τ²-bench reward basis: the reward is the product of the gating components
(database match, stored assertions, judged statements, reference actions, communicated information),
gated by how the episode ended. Components outside the basis are still computed, as diagnostics.

- Database match: the final state equals the state the reference actions produce on a fresh world
  (failing reference calls are no-ops, as in τ²-bench). States compare by τ²-bench's database hash
  (`same_state`): maps by content, lists in order, every field counted, and `true`, `1` and `1.0` apart.
- Communicated information: each item, lower-cased, occurs in some agent message with its commas removed.
- Actions: each reference action was called with equal values on the compared keys (`compare_args`, or
  when unset the keys the call itself gave, so extra keys fail and missing ones are not compared); a key
  one side gives and the other lacks differs, as τ²-bench compares the two selections as maps.
- Natural-language assertions: the verdicts of an LLM judge (`tau2.episode._judge`); without a judge they are
  "not judged", which never passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue

from tau2.episode._judge import NOT_JUDGED, Verdict
from tau2.episode._trajectory import EntryKind, TerminationReason, ToolCall, Trajectory
from tau2.tasks import RewardType, SolutionStep, Task, initialize_world, run_assertions
from tau2.world import Side, ToolResult, World, same_state

FINISHED = frozenset({TerminationReason.USER_STOP, TerminationReason.AGENT_STOP, TerminationReason.TRANSFER})
"""Endings that let a reward count; any other (step or error limits, failures) scores 0."""


class CheckRecord(BaseModel):
    """One evaluated component: its kind, whether it gates the reward, and its outcome."""

    model_config = ConfigDict(frozen=True)

    kind: RewardType
    gating: bool
    passed: bool | None
    """None: not evaluated (a statement no judge has seen)."""
    item: str | None = None
    """What was checked: an information item, an action id, a statement; None for whole-world checks."""
    detail: str | None = None


class BasisVerdict(BaseModel):
    """The reward a basis gives an episode, and every component check behind it."""

    model_config = ConfigDict(frozen=True)

    reward: float
    checks: list[CheckRecord]


def evaluate_basis(
    task: Task,
    world: World,
    trajectory: Trajectory,
    *,
    data_dir: Path | None = None,
    nl_verdicts: Mapping[str, Verdict] | None = None,
    reference: BaseModel | None = None,
) -> BasisVerdict:
    """Score `trajectory` (ending in `world`) by the task's reward basis; `nl_verdicts` maps
    natural-language assertions to the judge's verdicts (absent: not judged); `reference` is the
    reference end state when the world did not start from `data_dir`'s data (a renamed one)."""
    basis = set(task.evaluation.reward_basis or [])
    checks: list[CheckRecord] = []
    checks.append(database_check(task, world, data_dir, gating=RewardType.DB in basis, reference=reference))
    checks.extend(assertion_checks(task, world, gating=RewardType.ENV_ASSERTION in basis))
    checks.extend(communicate_checks(task, trajectory, gating=RewardType.COMMUNICATE in basis))
    checks.extend(action_checks(task, trajectory.tool_calls(), gating=RewardType.ACTION in basis))
    checks.extend(nl_checks(task, nl_verdicts or {}, gating=RewardType.NL_ASSERTION in basis))
    reward = gated_reward(checks, trajectory.termination) if basis else 0.0
    return BasisVerdict(reward=reward, checks=checks)


def gated_reward(checks: Sequence[CheckRecord], termination: TerminationReason | None) -> float:
    """A basis's reward: 1.0 when the episode ended properly and every gating check passed."""
    success = termination in FINISHED and all(check.passed is True for check in checks if check.gating)
    return 1.0 if success else 0.0


def database_check(
    task: Task, world: World, data_dir: Path | None, *, gating: bool, reference: BaseModel | None = None
) -> CheckRecord:
    """Whether the final state equals the reference end state (`reference`, else the one the task's
    reference actions reach from `data_dir`'s data)."""
    expected = reference_state(task, data_dir) if reference is None else reference
    passed = same_state(world.state, expected)
    detail = None if passed else "the final database differs from the one the reference actions produce"
    return CheckRecord(kind=RewardType.DB, gating=gating, passed=passed, detail=detail)


_REFERENCE_STATES: dict[tuple[str, Path | None, str], BaseModel] = {}
_CACHED_STATES = 1024


def reference_state(task: Task, data_dir: Path | None) -> BaseModel:
    """The state after the task's reference actions on a fresh world, computed once per task content and
    data directory (every trial of a task compares with the same state)."""
    key = (
        task.domain,
        data_dir,
        task.model_dump_json(include={"initial_data", "initialization", "evaluation"}),
    )
    state = _REFERENCE_STATES.get(key)
    if state is None:
        if len(_REFERENCE_STATES) >= _CACHED_STATES:
            _REFERENCE_STATES.clear()
        state = _REFERENCE_STATES[key] = replay_reference(task, data_dir).state
    return state


def replay_reference(task: Task, data_dir: Path | None) -> World:
    """A fresh world of the task with every reference action applied by its side; a failing action is
    a no-op (τ²-bench logs and skips it)."""
    return replay_reference_results(task, data_dir)[0]


def replay_reference_results(task: Task, data_dir: Path | None) -> tuple[World, list[ToolResult]]:
    """`replay_reference`, with each reference action's result."""
    world = initialize_world(task, data_dir)
    results = [world.call(step.side, step.name, step.arguments) for step in task.evaluation.solution]
    return world, results


def assertion_checks(task: Task, world: World, *, gating: bool) -> list[CheckRecord]:
    """The task's stored assertions on the final world."""
    return [
        CheckRecord(
            kind=RewardType.ENV_ASSERTION,
            gating=gating,
            passed=outcome.passed,
            item=outcome.call.describe(),
            detail=None if outcome.passed else outcome.describe(),
        )
        for outcome in run_assertions(world, task.evaluation.assertions)
    ]


def communicate_checks(task: Task, trajectory: Trajectory, *, gating: bool) -> list[CheckRecord]:
    """One check per information item the agent had to tell the customer."""
    messages = [
        entry.text.lower().replace(",", "")
        for entry in trajectory.entries
        if entry.kind is EntryKind.MESSAGE and entry.seat is Side.AGENT and entry.text and entry.text.strip()
    ]
    return [
        CheckRecord(
            kind=RewardType.COMMUNICATE,
            gating=gating,
            passed=any(item.lower() in message for message in messages),
            item=item,
        )
        for item in task.evaluation.communicate_info or []
    ]


def action_checks(task: Task, calls: Sequence[ToolCall], *, gating: bool) -> list[CheckRecord]:
    """One check per reference action: was it called, by τ²-bench's matching rule."""
    return [
        CheckRecord(
            kind=RewardType.ACTION,
            gating=gating,
            passed=any(action_matches(step, call) for call in calls),
            item=step.action_id,
        )
        for step in task.evaluation.solution
    ]


def action_matches(step: SolutionStep, call: ToolCall) -> bool:
    """Same name, and the call's and the reference's arguments on `compare_args` (None: every key the call
    gave) equal as maps, as Python sees them (1 equals 1.0; list order matters; a key only one gives
    differs)."""
    if call.name != step.name:
        return False
    keys = set(call.arguments) if step.compare_args is None else set(step.compare_args)
    return _selected(call.arguments, keys) == _selected(step.arguments, keys)


def _selected(arguments: Mapping[str, JsonValue], keys: set[str]) -> dict[str, JsonValue]:
    return {key: value for key, value in arguments.items() if key in keys}


def nl_checks(task: Task, verdicts: Mapping[str, Verdict], *, gating: bool) -> list[CheckRecord]:
    """One check per natural-language assertion, from the judge's verdicts."""
    return [
        nl_check(statement, verdicts.get(statement, NOT_JUDGED), gating=gating)
        for statement in task.evaluation.nl_assertions or []
    ]


def nl_check(statement: str, verdict: Verdict, *, gating: bool) -> CheckRecord:
    """The check of one natural-language assertion, as the judge's verdict decides it."""
    return CheckRecord(
        kind=RewardType.NL_ASSERTION,
        gating=gating,
        passed=verdict.passed,
        item=statement,
        detail=verdict.problem or verdict.reasoning,
    )


def rejudged_checks(checks: Sequence[CheckRecord], verdicts: Mapping[str, Verdict]) -> list[CheckRecord]:
    """`checks` with each natural-language assertion decided by its verdict in `verdicts` (absent: not
    judged) and every other check as it was: what a new judge changes in an evaluated episode."""
    return [
        nl_check(check.item, verdicts.get(check.item, NOT_JUDGED), gating=check.gating)
        if check.kind is RewardType.NL_ASSERTION and check.item is not None
        else check
        for check in checks
    ]
