"""The episode core: one episode of a task, driven one actor turn at a time.

It owns the half-duplex turn protocol, tool resolution, partial observability, termination and the
trajectory. Each actor turn is one message to the other seat, one or more tool calls on its own tools
(results go back to the caller, which acts again), or a stop (user only). The core, never free text,
owns termination, and each seat observes only its own tool calls and results. It never awaits anything:
whoever drives it (the asynchronous orchestrator, the RL environments, `tau2 play`) asks the seat it
names for a turn and hands the turn back.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tau2.episode._actor import ActorTurn, SeatContext
from tau2.episode._config import EpisodeConfig, Mode
from tau2.episode._evaluation import EvaluationResult, evaluate
from tau2.episode._judge import Judgement
from tau2.episode._protocol import DONE_RESULT, DONE_TOOL, GREETING
from tau2.episode._result import EpisodeResult, EpisodeTiming
from tau2.episode._seat_contexts import seat_contexts, settled, tool_resolution, user_whitelist
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
from tau2.perturbations import CallAttempt, EpisodeStart, PerturbationRecord, Perturber, Step
from tau2.tasks import Task, domain_of, initialize_world
from tau2.world import (
    Side,
    StateMark,
    ToolKind,
    ToolResult,
    WorldView,
    WriteCall,
    WriteTracker,
    refusal_of,
)


@dataclass(frozen=True)
class Turn:
    """The seat that acts next, and what it observed since its previous turn began."""

    seat: Side
    observation: list[Entry]


class Episode:
    """One episode: `start` opens the conversation, `apply` carries out one actor turn; both return the
    next `Turn`, or None once the episode is over. `result` then evaluates it.

    Building it applies the configured perturbations' start (which may change the task as played and the
    data its world is built from), initialises the task's world (a task that fails raises
    `TaskSetupError`) and the seats' contexts, which the actors are started with before `start`.
    `persona_text` overrides the task's. Every tool call passes the perturbations before the world: one
    they intercept never reaches it, and its caller is told what the perturbation says. A perturbation
    that waits on a model before the episode (a paraphrased brief) needs `await Episode.create(...)`,
    which prepares the perturbations and hands them in as `perturber`; what their model calls cost is
    counted in the usage of the seat they served.
    """

    __slots__ = (
        "_bad_turns",
        "_base",
        "_cursors",
        "_detail",
        "_ended",
        "_entries",
        "_errors",
        "_initial",
        "_perturber",
        "_played",
        "_ready",
        "_reference",
        "_resolve",
        "_retrieval",
        "_seat",
        "_setup_s",
        "_sides",
        "_solo",
        "_steps",
        "_termination",
        "_trajectory",
        "_transfer_tool",
        "_usage",
        "_world",
        "_writes",
        "config",
        "contexts",
        "data_dir",
        "task",
    )

    def __init__(
        self,
        task: Task,
        config: EpisodeConfig,
        *,
        data_dir: Path | None = None,
        persona_text: str | None = None,
        perturber: Perturber | None = None,
    ) -> None:
        started = time.perf_counter()
        if perturber is None and config.perturbations:
            perturber = Perturber.of(config.perturbations, config.seed)
        self._perturber = perturber
        self._played: Task | None = None
        start = EpisodeStart(task, data_dir)
        if self._perturber is not None:
            start = self._perturber.before_episode(start)
            self._played = None if start.task == task else start.task
            task, data_dir = start.task, start.data_dir
        self._reference = start.reference
        self._base = start.base
        self.task = task
        """The task as played (a perturbation may have changed it)."""
        self.config = config
        self.data_dir = data_dir
        seated = settled(task, config)
        self._retrieval = seated.retrieval
        self._world = initialize_world(task, data_dir, retrieval=self._retrieval, base=start.base)
        self._initial = StateMark(self._world)
        self._writes = WriteTracker(self._world)
        self.contexts: dict[Side, SeatContext] = seat_contexts(
            task, domain_of(self._world), seated, persona_text, data_dir=data_dir
        )
        """What each seat is given at the start (agent first; no user seat in solo mode)."""
        self._solo = config.mode is Mode.SOLO
        whitelist = user_whitelist(task)
        self._sides = {seat: context.sides for seat, context in self.contexts.items()}
        self._resolve = {
            seat: tool_resolution(self._world.domain, sides, whitelist) for seat, sides in self._sides.items()
        }
        self._transfer_tool = self._world.domain.transfer_tool
        self._entries: list[Entry] = []
        self._cursors = dict.fromkeys(self.contexts, 0)
        self._bad_turns = dict.fromkeys(self.contexts, 0)
        self._usage: dict[Side, Usage] = {} if perturber is None else perturber.usage
        self._errors = 0
        self._steps = 0
        self._seat: Side | None = None
        self._termination: TerminationReason | None = None
        self._detail: str | None = None
        self._trajectory: Trajectory | None = None
        self._ended = 0.0
        self._ready = time.perf_counter()
        self._setup_s = self._ready - started

    @classmethod
    async def create(
        cls,
        task: Task,
        config: EpisodeConfig,
        *,
        data_dir: Path | None = None,
        persona_text: str | None = None,
    ) -> Episode:
        """The episode of `task`, built once its perturbations are prepared: a kind that waits on an answer
        before the episode (a brief paraphrased by a model) is awaited here, which building it directly
        cannot do. A preparation that fails raises (`InfrastructureError` for a refused paraphrase)."""
        perturber = None
        if config.perturbations:
            perturber = Perturber.of(config.perturbations, config.seed)
            await perturber.prepare(EpisodeStart(task, data_dir))
        return cls(task, config, data_dir=data_dir, persona_text=persona_text, perturber=perturber)

    def world_view(self) -> WorldView:
        """A read-only view of this episode's world, for actors that judge the world itself."""
        return WorldView(self._world, self._initial)

    @property
    def seats(self) -> tuple[Side, ...]:
        """The seats of the episode: the agent, and the user in interactive mode."""
        return tuple(self.contexts)

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self._trajectory is not None

    @property
    def trajectory(self) -> Trajectory:
        """The finished episode's record."""
        if self._trajectory is None:
            raise RuntimeError("the episode is still running")
        return self._trajectory

    def start(self) -> Turn | None:
        """Open the conversation (interactive: the agent's fixed greeting, then the user acts; solo: the
        agent acts on an empty observation) and return the first turn; call it once the actors started."""
        if self._seat is not None or self.over:
            raise RuntimeError("the episode has already started")
        self._seat = Side.AGENT
        if not self._solo:
            self._append(Side.AGENT, EntryKind.MESSAGE, text=GREETING)
            self._seat = Side.USER
        return self._next()

    def apply(self, turn: ActorTurn) -> Turn | None:
        """Carry out the turn of the seat named by the latest `Turn`; return the next turn, or None at the
        end."""
        seat = self._seat
        if seat is None or self.over:
            raise RuntimeError("no seat is to act: the episode has not started or is over")
        self._steps += 1
        self._seat = self._apply(seat, turn)
        return self._next()

    def fail(self, seat: Side, error: Exception) -> None:
        """End the episode because the actor of `seat` raised `error` (starting or acting); refused
        credentials end more than the episode, so they propagate, naming the seat."""
        if not self.over:
            self._end(*_failure(error, seat))

    def result(
        self,
        *,
        agent_label: str | None = None,
        user_label: str | None = None,
        judgement: Judgement | None = None,
    ) -> EpisodeResult:
        """Evaluate the finished episode (with the judge's verdicts on its natural-language assertions,
        when it had a judge) and return everything it produced."""
        trajectory = self.trajectory
        evaluation = self.evaluate(judgement)
        finished = time.perf_counter()
        return EpisodeResult(
            task_id=self.task.id,
            config=self.config,
            agent=agent_label,
            user=None if self._solo else user_label,
            trajectory=trajectory,
            evaluation=evaluation,
            seed=self.config.seed,
            timing=EpisodeTiming(
                setup_s=self._setup_s,
                conversation_s=self._ended - self._ready,
                evaluation_s=finished - self._ended,
            ),
            state_changes=(changes := self._initial.changes_to(self._world)),
            record_writes=self._writes.written(changes),
            perturbation=self.perturbation,
            played=self._played,
            played_base=self._base,
        )

    @property
    def perturbation(self) -> PerturbationRecord | None:
        """What the perturbations did in the finished episode, and which the agent noticed; None when
        there were none or they did nothing."""
        if self._perturber is None:
            return None
        return self._perturber.record(self._steps_taken())

    def _steps_taken(self) -> list[Step]:
        """The finished episode's messages and tool calls, as perturbations read them."""
        tools = self._world.tools
        steps = []
        for entry in self.trajectory.entries:
            call = entry.tool_call
            if entry.kind is EntryKind.MESSAGE:
                steps.append(Step(index=entry.index, seat=entry.seat))
            elif entry.kind is EntryKind.TOOL_CALL and call is not None:
                tool = tools.tool(call.name)
                reads = tool is not None and tool.kind is ToolKind.READ
                steps.append(Step(entry.index, entry.seat, call.name, dict(call.arguments), reads))
        return steps

    def _evaluated_trajectory(self) -> Trajectory:
        """The trajectory the evaluation compares with the reference: without the calls a perturbation
        kept from the world (and their results), which did nothing there."""
        trajectory = self.trajectory
        record = self.perturbation
        unreached = frozenset() if record is None else record.unreached_entries()
        if not unreached:
            return trajectory
        kept = [entry for entry in trajectory.entries if entry.index not in unreached]
        return trajectory.model_copy(update={"entries": kept})

    def evaluate(self, judgement: Judgement | None = None) -> EvaluationResult:
        """The finished episode's evaluation, with `judgement`'s verdicts on its natural-language assertions
        (None: not judged)."""
        judgement = Judgement() if judgement is None else judgement
        return evaluate(
            self.task,
            self._world,
            self._evaluated_trajectory(),
            data_dir=self.data_dir,
            nl_verdicts=judgement.verdicts,
            judge_usage=judgement.usage,
            judges=judgement.judges,
            judge_skipped=judgement.skipped,
            retrieval=self._retrieval,
            reference=self._reference,
        )

    def _next(self) -> Turn | None:
        """The turn of the seat to act, or None when the episode is over (the step limit ends it here)."""
        if self._termination is None and self._steps >= self.config.max_steps:
            self._end(TerminationReason.MAX_STEPS, f"{self._steps} actor turns")
        if self._termination is not None:
            return None
        assert self._seat is not None
        return Turn(self._seat, self._observe(self._seat))

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
            if self._bad_turns[seat] >= self.config.max_actor_retries:
                self._end(TerminationReason.ACTOR_ERROR, f"{seat.value} actor: {problem}")
            return seat
        ending = _after_corrections(seat, self._bad_turns[seat])
        self._bad_turns[seat] = 0
        if turn.tool_calls:
            self._run_calls(seat, turn.tool_calls, usage, ending)
            return seat
        if turn.text:
            self._append(seat, EntryKind.MESSAGE, text=turn.text, usage=usage)
        if turn.stop:
            self._end(TerminationReason.USER_STOP, ending)
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

    def _run_calls(self, seat: Side, calls: list[ToolCall], usage: Usage | None, ending: str | None) -> None:
        """Resolve and run tool calls in order, stopping at the first that ends the episode (`ending`: the
        detail of a proper ending, see `_after_corrections`)."""
        resolve = self._resolve[seat]
        for call in calls:
            if self._solo and call.name == DONE_TOOL:
                done = call.model_copy(update={"side": Side.AGENT})
                self._append(seat, EntryKind.TOOL_CALL, tool_call=done, usage=usage)
                self._append(seat, EntryKind.TOOL_RESULT, tool_call=done, result=DONE_RESULT)
                self._end(TerminationReason.AGENT_STOP, ending)
                return
            side = resolve.get(call.name)
            if side is None:
                result = self._refusal(seat, call.name)
            else:
                kept = self._perturbed(seat, call)
                if kept is not None:
                    result = kept
                else:
                    self._writes.before(call.name)
                    result = self._world.call(side, call.name, call.arguments)
                    self._writes.after(WriteCall(entry=len(self._entries), seat=seat, tool=call.name))
            resolved = call if call.side is side else call.model_copy(update={"side": side})
            self._append(seat, EntryKind.TOOL_CALL, tool_call=resolved, usage=usage)
            usage = None
            self._append(seat, EntryKind.TOOL_RESULT, tool_call=resolved, result=result)
            if not result.ok:
                self._errors += 1
                if self._errors >= self.config.max_errors:
                    self._end(TerminationReason.TOO_MANY_ERRORS, f"{self._errors} failed tool calls")
                    return
            elif call.name == self._transfer_tool and refusal_of(self._world.domain, result) is None:
                self._end(TerminationReason.TRANSFER, ending)
                return

    def _perturbed(self, seat: Side, call: ToolCall) -> ToolResult | None:
        """What a perturbation answers a call it keeps from the world (its entries come next), or None
        when the call goes through."""
        if self._perturber is None:
            return None
        tool = self._world.tools.tool(call.name)
        if tool is None:
            return None
        attempt = CallAttempt(seat, tool, dict(call.arguments), self._world)
        caught = self._perturber.intercept(attempt, len(self._entries))
        return None if caught is None else caught.result

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
                elapsed_s=time.perf_counter() - self._ready,
                **fields,
            )
        )

    def _end(self, reason: TerminationReason, detail: str | None = None) -> None:
        """Record why the episode ended and close its trajectory."""
        self._termination = reason
        self._detail = detail
        self._ended = time.perf_counter()
        self._trajectory = Trajectory(
            entries=self._entries,
            termination=reason,
            termination_detail=detail,
            duration_s=self._ended - self._ready,
            steps=self._steps,
            usage=self._usage,
        )


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
