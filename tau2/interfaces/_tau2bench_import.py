"""`tau2 import tau2bench`: a τ²-bench results file becomes a run directory. Each recorded trajectory is
replayed in our world from its task's initial state (every tool call re-run on the side that made it) and
evaluated by our evaluator; the reward τ²-bench recorded is kept beside ours in a sidecar file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tau2 import (
    ActorSpec,
    Entry,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    Mode,
    Side,
    SimulationRecord,
    Task,
    TaskSetupError,
    TerminationReason,
    ToolCall,
    ToolResult,
    Trajectory,
    UnknownDomainError,
    Usage,
    UserInputError,
    World,
    evaluate,
    get_domain,
    initialize_world,
)
from tau2._jsonfile import read_json, validation_error, write_json
from tau2.episode import DONE_TOOL, EpisodeTiming
from tau2.interfaces._runs import check_new_run_dir, write_run
from tau2.interfaces._tau2bench_format import ParticipantMessage, Results, SimulationRun, ToolMessage
from tau2.llm import ModelSpec
from tau2.runner import episode_record
from tau2.tasks import task_from_tau2

SIDECAR: Final = "tau2bench.json"
"""File in an imported run directory with the rewards τ²-bench recorded beside ours."""
IMPORTED_KIND: Final = "tau2bench"
"""Actor kind of both seats of an imported run; the spec's model is the model τ²-bench names (or, without
one, its implementation), so labels read e.g. `tau2bench:gpt-4.1`."""

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


class ImportedSimulation(BaseModel):
    """One imported simulation: the reward τ²-bench recorded and ours, and how far the replay agreed."""

    model_config = ConfigDict(frozen=True)

    simulation_id: str
    task_id: str
    trial: int
    recorded_reward: float | None
    reward: float
    tool_calls: int
    tool_result_mismatches: int
    """Replayed calls whose outcome differs from the recorded one (one succeeded, the other failed, or no
    result was recorded); the wording of results is each implementation's own and is not compared."""

    @property
    def agrees(self) -> bool:
        """Whether our reward equals the recorded one (no recorded reward cannot disagree)."""
        return self.recorded_reward is None or self.recorded_reward == self.reward


class Tau2BenchImport(BaseModel):
    """The sidecar of an imported run."""

    model_config = ConfigDict(frozen=True)

    source: str
    domain: str
    simulations: list[ImportedSimulation] = Field(default_factory=list)

    def disagreements(self) -> list[ImportedSimulation]:
        """Simulations whose recorded reward differs from ours."""
        return [simulation for simulation in self.simulations if not simulation.agrees]


def import_results(path: Path, run_dir: Path, data_dir: Path | None = None) -> Tau2BenchImport:
    """Import the results file at `path` into the new run directory `run_dir`; returns the comparison."""
    check_new_run_dir(run_dir)
    try:
        results = Results.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None
    info = results.info
    domain = info.environment_info.domain_name
    try:
        get_domain(domain)
    except UnknownDomainError as error:
        raise UserInputError(f"{path}: info.environment_info.domain_name: {error}") from None
    if not results.simulations:
        raise UserInputError(f"{path}: simulations: the file has no simulations")
    tasks = {record.id: task_from_tau2(record, domain) for record in results.tasks}
    mode = Mode.INTERACTIVE if _has_user(results.simulations) else Mode.SOLO
    config = EpisodeConfig(mode=mode, max_steps=info.max_steps, max_errors=info.max_errors)
    labels = {
        Side.AGENT: ActorSpec(
            kind=IMPORTED_KIND, model=ModelSpec(name=info.agent_info.llm or info.agent_info.implementation)
        ),
        Side.USER: ActorSpec(
            kind=IMPORTED_KIND, model=ModelSpec(name=info.user_info.llm or info.user_info.implementation)
        ),
    }
    records: list[SimulationRecord] = []
    comparisons: list[ImportedSimulation] = []
    trials: Counter[str] = Counter()
    for index, simulation in enumerate(results.simulations):
        task = tasks.get(simulation.task_id)
        if task is None:
            raise UserInputError(
                f"{path}: simulations[{index}].task_id: {simulation.task_id!r} is not in tasks"
            )
        trial = simulation.trial if simulation.trial is not None else trials[simulation.task_id]
        trials[simulation.task_id] = trial + 1
        seed = simulation.seed if simulation.seed is not None else (info.seed or 0)
        try:
            result, calls, mismatches = _replay(
                task, simulation, config.model_copy(update={"seed": seed}), data_dir
            )
        except TaskSetupError as error:
            hint = "" if data_dir else " (τ²-bench's tasks need τ²-bench's data files: give --data-dir)"
            raise UserInputError(f"{path}: simulations[{index}]: {error}{hint}") from None
        result = result.model_copy(
            update={
                "agent": labels[Side.AGENT].label(),
                "user": labels[Side.USER].label() if mode is Mode.INTERACTIVE else None,
            }
        )
        records.append(episode_record(task, trial, result))
        recorded = simulation.reward_info.reward if simulation.reward_info is not None else None
        comparisons.append(
            ImportedSimulation(
                simulation_id=simulation.id,
                task_id=task.id,
                trial=trial,
                recorded_reward=recorded,
                reward=result.reward,
                tool_calls=calls,
                tool_result_mismatches=mismatches,
            )
        )
    used = [task for task in tasks.values() if trials[task.id]]
    write_run(
        run_dir,
        tasks=used,
        mode=mode,
        agent=labels[Side.AGENT],
        user=labels[Side.USER] if mode is Mode.INTERACTIVE else None,
        config=config,
        trials=max(trials.values()),
        seed=info.seed or 0,
        records=records,
    )
    imported = Tau2BenchImport(source=str(path), domain=domain, simulations=comparisons)
    write_json(run_dir / SIDECAR, imported.model_dump(mode="json"))
    return imported


def load_import(run_dir: Path) -> Tau2BenchImport | None:
    """The sidecar of an imported run, or None for a run that was not imported."""
    path = run_dir / SIDECAR
    if not path.is_file():
        return None
    try:
        return Tau2BenchImport.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None


def _has_user(simulations: list[SimulationRun]) -> bool:
    """τ²-bench's solo mode has no user messages; every interactive conversation has some."""
    return any(
        isinstance(message, ParticipantMessage) and message.role == "user"
        for simulation in simulations
        for message in simulation.messages
    )


def _replay(
    task: Task, simulation: SimulationRun, config: EpisodeConfig, data_dir: Path | None
) -> tuple[EpisodeResult, int, int]:
    """The episode a recorded simulation amounts to in our world, its tool calls, and how many of those
    had a different outcome."""
    world = initialize_world(task, data_dir)
    recorded = {message.id: message for message in simulation.messages if isinstance(message, ToolMessage)}
    entries: list[Entry] = []
    calls = mismatches = 0
    solo = config.mode is Mode.SOLO
    for message in simulation.messages:
        if not isinstance(message, ParticipantMessage):
            continue
        seat = Side.AGENT if message.role == "assistant" else Side.USER
        if message.content and message.content.strip():
            entries.append(_entry(entries, seat, EntryKind.MESSAGE, text=message.content))
        for call in message.tool_calls or []:
            calls += 1
            side, outcome = _run_call(world, call.name, call.arguments, call.requestor, solo)
            ours = ToolCall(call_id=call.id, name=call.name, arguments=call.arguments, side=side)
            entries.append(_entry(entries, seat, EntryKind.TOOL_CALL, tool_call=ours))
            entries.append(_entry(entries, seat, EntryKind.TOOL_RESULT, tool_call=ours, result=outcome))
            mismatches += not _same_outcome(outcome, recorded.get(call.id))
    participants = [m for m in simulation.messages if isinstance(m, ParticipantMessage)]
    usage = _usage(participants, simulation)
    trajectory = Trajectory(
        entries=entries,
        termination=_termination(simulation.termination_reason, world, entries),
        termination_detail=f"recorded by τ²-bench as {simulation.termination_reason}",
        duration_s=simulation.duration,
        steps=max(0, len(participants) - (0 if solo else 1)),
        usage=usage,
    )
    evaluation = evaluate(task, world, trajectory)
    assert trajectory.termination is not None
    result = EpisodeResult(
        task_id=task.id,
        config=config,
        trajectory=trajectory,
        evaluation=evaluation,
        seed=config.seed,
        timing=EpisodeTiming(setup_s=0.0, conversation_s=simulation.duration, evaluation_s=0.0),
    )
    return result, calls, mismatches


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


def _same_outcome(ours: ToolResult, recorded: ToolMessage | None) -> bool:
    """Whether our result has the recorded outcome: both succeeded or both failed (a missing recorded
    result differs). The wording of results is each domain's own, so content is not compared."""
    return recorded is not None and ours.ok == (not recorded.error)


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
        calls = [message.usage or {} for message in participants if message.role == role and message.usage]
        if calls or costs[seat]:
            usage[seat] = Usage(
                calls=len(calls),
                prompt_tokens=sum(int(call.get("prompt_tokens") or 0) for call in calls),
                completion_tokens=sum(int(call.get("completion_tokens") or 0) for call in calls),
                cost=costs[seat],
            )
    return usage


def _entry(entries: list[Entry], seat: Side, kind: EntryKind, **fields: Any) -> Entry:
    return Entry(index=len(entries), seat=seat, kind=kind, **fields)
