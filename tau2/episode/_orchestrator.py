"""The orchestrator: runs one episode's half-duplex turn protocol between the seats and the world.

Each actor turn is one message to the other seat, one or more tool calls on its own tools (results go
back to the caller, which acts again), or a stop (user only). The orchestrator, never free text, owns
termination, and each seat observes only its own tool calls and results.
"""

from __future__ import annotations

import json
import time
import traceback
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, computed_field

from tau2.episode._actor import Actor, ActorTurn, SeatContext
from tau2.episode._config import EpisodeConfig, Mode
from tau2.episode._evaluation import EvaluationResult, evaluate
from tau2.episode._judge import NLJudge, judge_episode
from tau2.episode._protocol import DONE_RESULT, DONE_SCHEMA, DONE_TOOL, GREETING
from tau2.episode._trajectory import (
    Entry,
    EntryKind,
    RejectedReply,
    TerminationReason,
    ToolCall,
    Trajectory,
)
from tau2.errors import ErrorCode
from tau2.llm import (
    AuthenticationError,
    ContextOverflowError,
    InfrastructureError,
    ModelToolCall,
    Usage,
    safe_text,
)
from tau2.tasks import Task, initialize_world
from tau2.world import Domain, Side, StateChange, ToolResult, World, state_changes


class EpisodeTiming(BaseModel):
    """Wall-clock seconds spent building the world, conversing and evaluating."""

    model_config = ConfigDict(frozen=True)

    setup_s: float
    conversation_s: float
    evaluation_s: float


class EpisodeResult(BaseModel):
    """Everything one episode produced; serialised as one JSON line by the runner."""

    task_id: str
    config: EpisodeConfig
    agent: str | None = None
    """Label of the agent's spec, e.g. `llm:gpt-4o-mini`."""
    user: str | None = None
    """Label of the user's spec; None in solo mode."""
    trajectory: Trajectory
    evaluation: EvaluationResult
    seed: int | None = None
    timing: EpisodeTiming
    state_changes: list[StateChange] = []
    """What the episode changed in the world, from after initialisation to the end."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reward(self) -> float:
        """The evaluation's reward (stored once, in `evaluation`)."""
        return self.evaluation.reward

    @computed_field  # type: ignore[prop-decorator]
    @property
    def termination(self) -> TerminationReason:
        """Why the episode ended (stored once, in `trajectory`; a finished episode always has a reason)."""
        termination = self.trajectory.termination
        assert termination is not None, "a finished episode's trajectory records why it ended"
        return termination


async def run_episode(
    task: Task,
    agent: Actor,
    user: Actor | None,
    config: EpisodeConfig,
    *,
    data_dir: Path | None = None,
    persona_text: str | None = None,
    agent_label: str | None = None,
    user_label: str | None = None,
    judge: NLJudge | None = None,
) -> EpisodeResult:
    """Run `task` once and evaluate it. The user actor is required in interactive mode, unused in solo.

    `persona_text` overrides the task's persona; `judge` grades the task's natural-language assertions.
    A task whose initialisation fails raises `TaskSetupError`.
    """
    solo = config.mode is Mode.SOLO
    actors = {Side.AGENT: agent}
    if not solo:
        if user is None:
            raise ValueError("interactive mode needs a user actor")
        actors[Side.USER] = user
    started = time.perf_counter()
    world = initialize_world(task, data_dir)
    start = world.snapshot()
    contexts = seat_contexts(task, world.domain, config, persona_text, data_dir=data_dir)
    ready = time.perf_counter()
    conversation = _Conversation(world, task, config, actors)
    trajectory = await conversation.run(contexts)
    conversed = time.perf_counter()
    judgement = await judge_episode(judge, task, trajectory, config.seed)
    evaluation = evaluate(
        task,
        world,
        trajectory,
        data_dir=data_dir,
        nl_verdicts=judgement.verdicts,
        judge_usage=judgement.usage,
    )
    finished = time.perf_counter()
    assert trajectory.termination is not None  # _Conversation.run always ends with a reason
    return EpisodeResult(
        task_id=task.id,
        config=config,
        agent=agent_label,
        user=None if solo else user_label,
        trajectory=trajectory,
        evaluation=evaluation,
        seed=config.seed,
        timing=EpisodeTiming(
            setup_s=ready - started, conversation_s=conversed - ready, evaluation_s=finished - conversed
        ),
        state_changes=state_changes(start, world.snapshot()),
    )


def seat_contexts(
    task: Task,
    domain: Domain[Any],
    config: EpisodeConfig,
    persona_text: str | None = None,
    *,
    data_dir: Path | None = None,
) -> dict[Side, SeatContext]:
    """What each seat is given at the start: its toolsets and schemas, policy (agent), persona (user)."""
    solo = config.mode is Mode.SOLO
    whitelist = _whitelist(task)
    policy = agent_policy(domain, solo, config.policy_variant, data_dir)
    if solo:
        schemas = [*_schemas(domain, Side.AGENT, None), *_schemas(domain, Side.USER, whitelist), DONE_SCHEMA]
        return {
            Side.AGENT: SeatContext(
                seat=Side.AGENT,
                task=task,
                config=config,
                sides=(Side.AGENT, Side.USER),
                tool_schemas=schemas,
                policy=policy,
                transfer_tool=domain.transfer_tool,
            )
        }
    persona = persona_text if persona_text is not None else task.user_scenario.persona_text
    return {
        Side.AGENT: SeatContext(
            seat=Side.AGENT,
            task=task,
            config=config,
            sides=(Side.AGENT,),
            tool_schemas=list(_schemas(domain, Side.AGENT, None)),
            policy=policy,
            transfer_tool=domain.transfer_tool,
        ),
        Side.USER: SeatContext(
            seat=Side.USER,
            task=task,
            config=config,
            sides=(Side.USER,),
            tool_schemas=list(_schemas(domain, Side.USER, whitelist)),
            persona_text=persona,
        ),
    }


def agent_policy(domain: Domain[Any], solo: bool, variant: str, data_dir: Path | None) -> str | None:
    """The policy the agent reads: the data directory's own when the domain finds one there, else the
    domain's policy for the mode and variant."""
    shipped = shipped_policy(domain, data_dir)
    if shipped is not None:
        return shipped
    return domain.policy(solo, variant) if domain.policy is not None else None


def shipped_policy(domain: Domain[Any], data_dir: Path | None) -> str | None:
    """The policy text the data directory ships for this domain, if any."""
    if data_dir is None or domain.data_policy is None:
        return None
    return domain.data_policy(data_dir)


def _whitelist(task: Task) -> frozenset[str] | None:
    return None if task.user_tools is None else frozenset(task.user_tools)


def _offered(domain: Domain[Any], side: Side, whitelist: frozenset[str] | None) -> list[str]:
    """Names of the tools of `side` offered to a seat (user tools filtered by the task's whitelist)."""
    names = [tool.name for tool in domain.tools.tools(side)]
    if side is Side.USER and whitelist is not None:
        return [name for name in names if name in whitelist]
    return names


@lru_cache(maxsize=256)
def _schemas(domain: Domain[Any], side: Side, whitelist: frozenset[str] | None) -> tuple[dict[str, Any], ...]:
    """Tool schemas are costly to derive and identical across episodes, so they are built once."""
    names = set(_offered(domain, side, whitelist))
    return tuple(tool.json_schema() for tool in domain.tools.tools(side) if tool.name in names)


@lru_cache(maxsize=256)
def _resolution(
    domain: Domain[Any], sides: tuple[Side, ...], whitelist: frozenset[str] | None
) -> dict[str, Side]:
    """Tool name → side, for every tool a seat holding `sides` may call."""
    return {name: side for side in sides for name in _offered(domain, side, whitelist)}


def _failure(error: Exception, seat: Side) -> tuple[TerminationReason, str]:
    """The termination an exception raised by an actor leads to, and its detail; refused credentials
    end more than the episode, so they propagate, naming the seat."""
    if isinstance(error, AuthenticationError):
        raise AuthenticationError(f"{seat.value} seat: {error}") from error
    detail = safe_text(f"{seat.value} actor: {type(error).__name__}: {error}")
    if isinstance(error, ContextOverflowError):
        return TerminationReason.CONTEXT_OVERFLOW, detail
    if isinstance(error, InfrastructureError):
        return TerminationReason.INFRASTRUCTURE_ERROR, detail
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return TerminationReason.INFRASTRUCTURE_ERROR, f"unexpected error in the {detail}{where}"


def _after_corrections(seat: Side, corrected: int) -> str | None:
    """The trace a proper ending keeps when it came right after replies of its seat were rejected, so a
    format failure the seat recovered from by ending the episode never reads as a clean ending."""
    if not corrected:
        return None
    replies = "a rejected reply" if corrected == 1 else f"{corrected} rejected replies"
    return f"ended right after {replies} of the {seat.value}"


def _as_rejected(turn: ActorTurn) -> RejectedReply | None:
    """What a turn that broke the protocol said, as a rejected reply; None when it said nothing."""
    if turn.text is None and not turn.tool_calls and not turn.stop:
        return None
    calls = [
        ModelToolCall(id=call.call_id, name=call.name, arguments=json.dumps(call.arguments))
        for call in turn.tool_calls
    ]
    return RejectedReply(text=turn.text, tool_calls=calls, stop=turn.stop)


class _Conversation:
    """The mutable state of one running episode."""

    __slots__ = (
        "_actors",
        "_bad_turns",
        "_config",
        "_cursors",
        "_detail",
        "_entries",
        "_errors",
        "_resolve",
        "_sides",
        "_solo",
        "_started",
        "_steps",
        "_termination",
        "_transfer_tool",
        "_usage",
        "_world",
    )

    def __init__(self, world: World, task: Task, config: EpisodeConfig, actors: dict[Side, Actor]) -> None:
        self._world = world
        self._config = config
        self._actors = actors
        self._solo = config.mode is Mode.SOLO
        whitelist = _whitelist(task)
        self._sides = {seat: (Side.AGENT, Side.USER) if self._solo else (seat,) for seat in actors}
        self._resolve = {seat: _resolution(world.domain, self._sides[seat], whitelist) for seat in actors}
        self._transfer_tool = world.domain.transfer_tool
        self._entries: list[Entry] = []
        self._cursors = dict.fromkeys(actors, 0)
        self._bad_turns = dict.fromkeys(actors, 0)
        self._usage: dict[Side, Usage] = {}
        self._errors = 0
        self._steps = 0
        self._termination: TerminationReason | None = None
        self._detail: str | None = None
        self._started = time.perf_counter()

    async def run(self, contexts: dict[Side, SeatContext]) -> Trajectory:
        """Start both actors, alternate turns until a termination condition, return the trajectory."""
        for seat, actor in self._actors.items():
            try:
                await actor.start(contexts[seat])
            except Exception as error:
                self._end(*_failure(error, seat))
                return self._trajectory()
        seat = Side.AGENT
        if not self._solo:
            self._append(Side.AGENT, EntryKind.MESSAGE, text=GREETING)
            seat = Side.USER
        while self._termination is None:
            if self._steps >= self._config.max_steps:
                self._end(TerminationReason.MAX_STEPS, f"{self._steps} actor turns")
                break
            try:
                turn = await self._actors[seat].act(self._observe(seat))
            except Exception as error:
                self._end(*_failure(error, seat))
                break
            self._steps += 1
            seat = self._apply(seat, turn)
        return self._trajectory()

    def _observe(self, seat: Side) -> list[Entry]:
        """Entries visible to `seat` appended since its previous turn began (its own output included)."""
        start = self._cursors[seat]
        self._cursors[seat] = len(self._entries)
        return [entry for entry in self._entries[start:] if entry.visible_to(seat)]

    def _apply(self, seat: Side, turn: ActorTurn) -> Side:
        """Carry out one turn and return the seat that acts next."""
        usage = turn.usage
        if usage is not None:
            previous = self._usage.get(seat)
            self._usage[seat] = usage if previous is None else previous + usage
        problem = self._problem(seat, turn)
        if problem is not None:
            rejected = turn.rejected or _as_rejected(turn)
            if rejected is not None:
                self._append(seat, EntryKind.REJECTED_REPLY, rejected=rejected, usage=usage)
                usage = None
            self._append(seat, EntryKind.ACTOR_ERROR, text=problem, usage=usage)
            self._bad_turns[seat] += 1
            if self._bad_turns[seat] >= self._config.max_actor_retries:
                self._end(TerminationReason.ACTOR_ERROR, f"{seat.value} actor: {problem}")
            return seat
        corrected, self._bad_turns[seat] = self._bad_turns[seat], 0
        if turn.tool_calls:
            self._run_calls(seat, turn.tool_calls, usage)
            if self._termination in (TerminationReason.AGENT_STOP, TerminationReason.TRANSFER):
                self._detail = _after_corrections(seat, corrected)
            return seat
        if turn.text:
            self._append(seat, EntryKind.MESSAGE, text=turn.text, usage=usage)
        if turn.stop:
            self._end(TerminationReason.USER_STOP, _after_corrections(seat, corrected))
        return seat.other

    def _problem(self, seat: Side, turn: ActorTurn) -> str | None:
        """Why a turn breaks the protocol, phrased for the actor that made it; None when it is valid."""
        if turn.error is not None:
            return turn.error
        has_text = bool(turn.text and turn.text.strip())
        if has_text and turn.tool_calls:
            return "A turn is either one message or tool calls, not both."
        if turn.stop:
            if seat is Side.AGENT:
                if self._solo:
                    return f"Call the `{DONE_TOOL}` tool to end the episode."
                return "Only the customer can end the conversation."
            if turn.tool_calls:
                return "Ending the call cannot carry tool calls."
            return None
        if turn.tool_calls:
            return None
        if not has_text:
            return "The turn was empty: send a message or call tools."
        if self._solo:
            return f"There is no one to talk to: call tools, then `{DONE_TOOL}` when the ticket is handled."
        return None

    def _run_calls(self, seat: Side, calls: list[ToolCall], usage: Usage | None) -> None:
        """Resolve and run tool calls in order, stopping at the first that ends the episode."""
        resolve = self._resolve[seat]
        for call in calls:
            if self._solo and call.name == DONE_TOOL:
                done = call.model_copy(update={"side": Side.AGENT})
                self._append(seat, EntryKind.TOOL_CALL, tool_call=done, usage=usage)
                self._append(seat, EntryKind.TOOL_RESULT, tool_call=done, result=DONE_RESULT)
                self._end(TerminationReason.AGENT_STOP)
                return
            side = resolve.get(call.name)
            if side is None:
                result = self._refusal(seat, call.name)
            else:
                result = self._world.call(side, call.name, call.arguments)
            resolved = call if call.side is side else call.model_copy(update={"side": side})
            self._append(seat, EntryKind.TOOL_CALL, tool_call=resolved, usage=usage)
            usage = None
            self._append(seat, EntryKind.TOOL_RESULT, tool_call=resolved, result=result)
            if not result.ok:
                self._errors += 1
                if self._errors >= self._config.max_errors:
                    self._end(TerminationReason.TOO_MANY_ERRORS, f"{self._errors} failed tool calls")
                    return
            elif call.name == self._transfer_tool:
                self._end(TerminationReason.TRANSFER)
                return

    def _refusal(self, seat: Side, name: str) -> ToolResult:
        """The error result for a call of a tool the seat does not hold."""
        tool = self._world.tools.tool(name)
        if tool is not None and tool.side not in self._sides[seat]:
            return ToolResult.failure(
                ErrorCode.WRONG_SEAT,
                f"{name!r} is a {tool.side.value}-side tool; you hold only {seat.value}-side tools",
            )
        return ToolResult.failure(ErrorCode.UNKNOWN_TOOL, f"no tool named {name!r} is available to you")

    def _append(self, seat: Side, kind: EntryKind, **fields: Any) -> None:
        self._entries.append(
            Entry(
                index=len(self._entries),
                seat=seat,
                kind=kind,
                elapsed_s=time.perf_counter() - self._started,
                **fields,
            )
        )

    def _end(self, reason: TerminationReason, detail: str | None = None) -> None:
        self._termination = reason
        self._detail = detail

    def _trajectory(self) -> Trajectory:
        return Trajectory(
            entries=self._entries,
            termination=self._termination,
            termination_detail=self._detail,
            duration_s=time.perf_counter() - self._started,
            steps=self._steps,
            usage=self._usage,
        )
