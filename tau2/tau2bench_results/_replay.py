"""Replaying one recorded τ²-bench simulation in our world: every tool call runs again on the side that
made it, from the task's initial state on the run's data, and the final world is judged by our evaluator
on the same data. Each call is paired with its recorded result by position (the results follow their
message in order), since call ids are not unique in every provider's files. Calls of a knowledge base's
retrieval tools keep their recorded answers: they change nothing, and their answers are not reproducible
(a timing line, dense searches that need an embeddings service)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from tau2.episode import (
    DONE_TOOL,
    Entry,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    EpisodeTiming,
    Mode,
    TerminationReason,
    ToolCall,
    Trajectory,
    Verdict,
    evaluate,
)
from tau2.errors import ErrorCode
from tau2.llm import Usage
from tau2.tasks import Task, domain_of, initialize_world
from tau2.tau2bench_results._format import ParticipantMessage, SimulationRun, ToolMessage
from tau2.world import Side, ToolResult, World, WriteCall, WriteTracker

Outcome = Literal["success", "error", "missing"]

_TERMINATIONS: Final = {
    "user_stop": TerminationReason.USER_STOP,
    "agent_stop": TerminationReason.AGENT_STOP,
    "max_steps": TerminationReason.MAX_STEPS,
    "too_many_errors": TerminationReason.TOO_MANY_ERRORS,
    "assistant_error": TerminationReason.ACTOR_ERROR,
    "agent_error": TerminationReason.ACTOR_ERROR,
    "user_error": TerminationReason.ACTOR_ERROR,
    "infrastructure_error": TerminationReason.INFRASTRUCTURE_ERROR,
    "context_window_exceeded": TerminationReason.CONTEXT_OVERFLOW,
    "timeout": TerminationReason.MAX_STEPS,
}
"""τ²-bench termination reasons (older and current releases) and ours: a successful transfer makes a stop a
`transfer`, and its wall-clock timeout is a limit like our step limit."""


class CallMismatch(BaseModel):
    """A replayed tool call whose outcome (success or failure) differs from the recorded one, or that has
    no recorded result; the wording of results is each implementation's own and is not compared."""

    model_config = ConfigDict(frozen=True)

    message: int
    """The index of the call's message in the simulation's messages."""
    call: int
    """The call's position among that message's tool calls."""
    tool: str
    recorded: Outcome
    replayed: Outcome

    def describe(self) -> str:
        """`messages[4].tool_calls[1] book_reservation: recorded error, replayed success`."""
        where = f"messages[{self.message}].tool_calls[{self.call}]"
        return f"{where} {self.tool}: recorded {self.recorded}, replayed {self.replayed}"


class Replay(BaseModel):
    """A recorded simulation as an episode of ours, its number of replayed tool calls, the calls whose
    outcome differs from the recorded one, and the retrieval calls whose recorded answers were kept."""

    model_config = ConfigDict(frozen=True)

    result: EpisodeResult
    calls: int
    mismatches: list[CallMismatch]
    kept: int = 0


def replay(task: Task, simulation: SimulationRun, config: EpisodeConfig, data_dir: Path | None) -> Replay:
    """The episode `simulation` amounts to in our world, judged on `data_dir` (None: the domain's data)."""
    world = initialize_world(task, data_dir)
    changes = WriteTracker(world)
    support = domain_of(world).retrieval
    retrieval_tools = support.tools if support is not None else frozenset()
    entries: list[Entry] = []
    calls = kept = 0
    mismatches: list[CallMismatch] = []
    solo = config.mode is Mode.SOLO
    messages = simulation.messages
    for index, message in enumerate(messages):
        if not isinstance(message, ParticipantMessage):
            continue
        seat = Side.AGENT if message.role == "assistant" else Side.USER
        if message.content and message.content.strip():
            entries.append(_entry(entries, seat, EntryKind.MESSAGE, text=message.content))
        results = _results_after(messages, index, len(message.tool_calls or []))
        for position, (call, recorded) in enumerate(zip(message.tool_calls or [], results, strict=True)):
            if call.name in retrieval_tools:
                kept += 1
                ours = ToolCall(call_id=call.id, name=call.name, arguments=call.arguments, side=Side.AGENT)
                entries.append(_entry(entries, seat, EntryKind.TOOL_CALL, tool_call=ours))
                answer = _kept_answer(recorded)
                entries.append(_entry(entries, seat, EntryKind.TOOL_RESULT, tool_call=ours, result=answer))
                continue
            calls += 1
            changes.before(call.name)
            side, outcome = _run_call(world, call.name, call.arguments, call.requestor, solo)
            changes.after(WriteCall(entry=len(entries), seat=seat, tool=call.name))
            ours = ToolCall(call_id=call.id, name=call.name, arguments=call.arguments, side=side)
            entries.append(_entry(entries, seat, EntryKind.TOOL_CALL, tool_call=ours))
            entries.append(_entry(entries, seat, EntryKind.TOOL_RESULT, tool_call=ours, result=outcome))
            was = _recorded_outcome(recorded)
            now: Outcome = "success" if outcome.ok else "error"
            if was != now:
                mismatches.append(
                    CallMismatch(message=index, call=position, tool=call.name, recorded=was, replayed=now)
                )
    participants = [m for m in messages if isinstance(m, ParticipantMessage)]
    trajectory = Trajectory(
        entries=entries,
        termination=_termination(simulation.termination_reason, world, entries),
        termination_detail=f"recorded by τ²-bench as {simulation.termination_reason}",
        duration_s=simulation.duration,
        steps=max(0, len(participants) - (0 if solo else 1)),
        usage=_usage(participants, simulation),
    )
    evaluation = evaluate(
        task,
        world,
        trajectory,
        data_dir=data_dir,
        nl_verdicts=recorded_verdicts(simulation),
        retrieval=config.retrieval,
    )
    changed = changes.since_start()
    result = EpisodeResult(
        task_id=task.id,
        config=config,
        trajectory=trajectory,
        evaluation=evaluation,
        seed=config.seed,
        timing=EpisodeTiming(setup_s=0.0, conversation_s=simulation.duration, evaluation_s=0.0),
        state_changes=changed,
        record_writes=changes.written(changed),
    )
    return Replay(result=result, calls=calls, mismatches=mismatches, kept=kept)


def recorded_verdicts(simulation: SimulationRun) -> dict[str, Verdict]:
    """τ²-bench's judge verdicts on the task's natural-language assertions, by statement: a replay cannot
    ask a judge, so these are the verdicts a basis with `NL_ASSERTION` is scored on."""
    reward = simulation.reward_info
    verdicts: dict[str, Verdict] = {}
    for check in (reward.nl_assertions if reward is not None else None) or []:
        verdicts[check.nl_assertion] = Verdict(passed=check.met, reasoning=check.justification)
    return verdicts


def _results_after(messages: list[Any], index: int, count: int) -> list[ToolMessage | None]:
    """The recorded results of the `count` calls of message `index`: the tool messages that follow it, in
    order (None where fewer follow)."""
    following: list[ToolMessage | None] = []
    for message in messages[index + 1 : index + 1 + count]:
        if not isinstance(message, ToolMessage):
            break
        following.append(message)
    return following + [None] * (count - len(following))


def _kept_answer(message: ToolMessage | None) -> ToolResult:
    """A retrieval call's recorded answer as its result (a failure when it failed or none was recorded)."""
    if message is None:
        return ToolResult.failure(ErrorCode.INTERNAL_ERROR, "no result was recorded")
    text = message.content or ""
    return ToolResult.failure(ErrorCode.INTERNAL_ERROR, text) if message.error else ToolResult.success(text)


def _recorded_outcome(message: ToolMessage | None) -> Outcome:
    if message is None:
        return "missing"
    return "error" if message.error else "success"


def _run_call(
    world: World, name: str, arguments: dict[str, Any], requestor: str, solo: bool
) -> tuple[Side | None, ToolResult]:
    """Run one recorded call on the side that made it (a solo agent reaches the phone too)."""
    if solo and name == DONE_TOOL:
        return Side.AGENT, ToolResult.success("Episode ended.")
    side = Side.USER if requestor == "user" else Side.AGENT
    tool = world.tools.tool(name)
    if solo and tool is not None:
        side = tool.side
    outcome = world.call(side, name, arguments)
    return (side if tool is not None else None), outcome


def _termination(reason: str, world: World, entries: list[Entry]) -> TerminationReason:
    """Our termination for a recorded one; a stop after a successful transfer is a transfer, and a reason we
    do not know counts as an infrastructure error (left out of metrics, its detail naming the reason)."""
    ours = _TERMINATIONS.get(reason, TerminationReason.INFRASTRUCTURE_ERROR)
    transfer = world.domain.transfer_tool
    transferred = any(
        entry.kind is EntryKind.TOOL_RESULT
        and entry.tool_call is not None
        and entry.tool_call.name == transfer
        and entry.result is not None
        and entry.result.ok
        for entry in entries
    )
    if transferred and ours in (TerminationReason.USER_STOP, TerminationReason.AGENT_STOP):
        return TerminationReason.TRANSFER
    return ours


def _usage(participants: list[ParticipantMessage], simulation: SimulationRun) -> dict[Side, Usage]:
    """Per seat: its model calls (its messages that carry usage), their tokens, and the cost τ²-bench
    recorded for the seat."""
    usage: dict[Side, Usage] = {}
    costs = {Side.AGENT: simulation.agent_cost, Side.USER: simulation.user_cost}
    for seat, role in ((Side.AGENT, "assistant"), (Side.USER, "user")):
        calls = [message.usage for message in participants if message.role == role and message.usage]
        if calls or costs[seat]:
            usage[seat] = Usage(
                calls=len(calls),
                prompt_tokens=sum(call.prompt_tokens or 0 for call in calls),
                completion_tokens=sum(call.completion_tokens or 0 for call in calls),
                cost=costs[seat],
            )
    return usage


def _entry(entries: list[Entry], seat: Side, kind: EntryKind, **fields: Any) -> Entry:
    return Entry(index=len(entries), seat=seat, kind=kind, **fields)
