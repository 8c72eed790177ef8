"""A Gymnasium environment for one seat of a task: the learner plays the agent or the user, a configured
actor plays the other seat, and the episode runs on the ordinary episode core.

Observations are JSON text of what the seat saw since its previous action; actions are a message or a
JSON action (`tau2.rl.message_action`, `tool_call_action`, `stop_action`). The reward is the
episode's reward, given once at the end; every earlier step returns 0. Importing this module registers
`tau2/<domain>-<seat>-v0` for every installed domain.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any, Final

import gymnasium
from gymnasium import spaces

from tau2.actors import make_actor
from tau2.episode import Actor, ActorSpec, EpisodeConfig, EpisodeResult, Mode
from tau2.errors import UserInputError
from tau2.rl._actions import (
    CHARSET,
    MAX_ACTION_CHARS,
    MAX_OBSERVATION_CHARS,
    SeatView,
    checked_action,
    parse_action,
)
from tau2.rl._outcome import is_truncated, outcome_info
from tau2.stepping import EpisodeStepper, Event, TaskChooser, seat_brief
from tau2.tasks import Task, available_domains
from tau2.world import Side

OPTIONS: Final = TaskChooser.OPTIONS | {"mode"}
"""Keys `reset(options=…)` understands; an accepted option stays in force for later resets, a refused
one (the reset raised) changes nothing."""
DEFAULT_ACTORS: Final = {Side.AGENT: "oracle", Side.USER: "scripted"}
"""The offline actor of the other seat when none is configured."""


class Tau2SeatEnv(gymnasium.Env[str, str]):
    """One seat of a tau2 task as a Gymnasium environment (see the module docstring).

    `other` is the other seat's actor: a registered kind (`oracle`, `scripted`, `llm` …), an `ActorSpec`,
    or an actor instance (restarted every episode). Its turns run on a private event loop within `reset`
    and `step`, so an asynchronous actor (an LLM) works from synchronous training code. `config` holds the
    episode settings (`max_steps`, `max_errors`, …; default: `EpisodeConfig()`); `mode`, when given, replaces
    its mode, and each reset gives the episode its own seed.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's class attribute)

    def __init__(
        self,
        domain: str = "telecom",
        seat: Side | str = Side.AGENT,
        *,
        suite: str | Path | None = None,
        task_id: str | None = None,
        mode: Mode | str | None = None,
        persona: str | None = None,
        other: str | ActorSpec | Actor | None = None,
        config: EpisodeConfig | None = None,
        data_dir: Path | None = None,
    ) -> None:
        self.domain = domain
        self.seat = Side(seat)
        self._config = config or EpisodeConfig()
        self.mode = self._checked(self._config.mode if mode is None else _mode(mode))
        self._chooser = TaskChooser(domain, suite, task_id, persona)
        self._other = other
        self._data_dir = data_dir
        self._stepper = EpisodeStepper()
        self._view = SeatView(self.seat)
        self._task: Task | None = None
        self._result: EpisodeResult | None = None
        self._turns = 0
        self.observation_space = spaces.Text(MAX_OBSERVATION_CHARS, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(MAX_ACTION_CHARS, min_length=1, charset=CHARSET)

    @property
    def task(self) -> Task:
        """The task of the current episode."""
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    @property
    def result(self) -> EpisodeResult | None:
        """The finished episode's full result (trajectory, evaluation); None while it runs."""
        return self._result

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The function schemas of the tools the seat may call in the current episode."""
        context = self._stepper.context(self.seat)
        return copy.deepcopy(context.tool_schemas) if context is not None else []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Choose a task (the `task_id` option, or one drawn with the seeded generator) and start it. The
        options are kept for later resets only once the episode has started."""
        super().reset(seed=seed)
        options = options or {}
        unknown = sorted(set(options) - OPTIONS)
        if unknown:
            warnings.warn(f"tau2 ignores unknown reset options: {', '.join(unknown)}", stacklevel=2)
        self._task = self._result = None
        mode = self._checked(_mode(options["mode"])) if "mode" in options else self.mode
        task = self._chooser.choose(self.np_random, options)
        config = self._config.model_copy(update={"mode": mode, "seed": int(self.np_random.integers(2**31))})
        actors: dict[Side, Actor | None] = {self.seat: None}
        labels = {self.seat: "learner"}
        if mode is Mode.INTERACTIVE:
            actors[self.seat.other], labels[self.seat.other] = self._other_actor(mode)
        event = self._stepper.start(task, actors, config, data_dir=self._data_dir, labels=labels)
        self.mode, self._task = mode, task
        self._chooser.keep(options)
        self._view, self._turns = SeatView(self.seat), 0
        observation, info = self._observation(event), self._brief()
        if self._result is not None:  # the other seat ended the episode before the learner's first turn
            info.update(outcome_info(self._result))
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one turn of the seat; returns its next observation, or the end with the episode's reward.
        An action outside the action space's bounds raises `ValueError` and changes nothing."""
        if self._result is not None or self._task is None:
            raise RuntimeError("the episode is over (or not started): call reset()")
        turn = parse_action(checked_action(action), f"{self.seat.value}-{self._turns + 1}-")
        self._turns += 1
        observation = self._observation(self._stepper.send(turn))
        result = self._result
        if result is None:
            return observation, 0.0, False, False, {"task_id": self.task.id}
        truncated = is_truncated(result)
        return observation, result.reward, not truncated, truncated, outcome_info(result)

    def close(self) -> None:
        """Close the event loop the other seat's actor ran on."""
        self._stepper.close()

    def _observation(self, event: Event) -> str:
        """The observation text of an event; a finished episode's result is kept."""
        if isinstance(event, EpisodeResult):
            self._result = event
            return self._view.final(event.trajectory)
        return self._view.observe(event.observation)

    def _brief(self) -> dict[str, Any]:
        """Reset's info: the task, the seat, its brief and its tool schemas (fresh objects every time)."""
        info: dict[str, Any] = {"task_id": self.task.id, "domain": self.domain, "seat": self.seat.value}
        context = self._stepper.context(self.seat)
        if context is not None:
            info.update(mode=self.mode.value, brief=seat_brief(context), tool_schemas=self.tool_schemas)
        return info

    def _checked(self, mode: Mode) -> Mode:
        if mode is Mode.SOLO and self.seat is Side.USER:
            raise UserInputError("solo mode has no user seat: play the agent seat")
        return mode

    def _other_actor(self, mode: Mode) -> tuple[Actor, str]:
        """A fresh actor for the other seat (a given instance is reused: `start` resets it), and its label."""
        other = self._other if self._other is not None else DEFAULT_ACTORS[self.seat.other]
        if isinstance(other, str):
            other = ActorSpec(kind=other)
        if isinstance(other, ActorSpec):
            return make_actor(other, self.seat.other, mode), other.label()
        return other, type(other).__name__


def _mode(value: object) -> Mode:
    """The mode named by `value`; anything else is refused on one line."""
    if isinstance(value, str) and value in {mode.value for mode in Mode}:
        return Mode(value)
    raise UserInputError(f"mode {value!r}: expected interactive or solo")


def env_id(domain: str, seat: Side) -> str:
    """The registered id of a domain's seat, e.g. `tau2/telecom-agent-v0`."""
    return f"tau2/{domain}-{seat.value}-v0"


def register_envs() -> list[str]:
    """Register an id per installed domain and seat (idempotent); returns the ids."""
    ids = []
    for domain in available_domains():
        for seat in Side:
            name = env_id(domain, seat)
            if name not in gymnasium.registry:
                gymnasium.register(
                    id=name,
                    entry_point="tau2.rl.gymnasium_env:Tau2SeatEnv",
                    kwargs={"domain": domain, "seat": seat.value},
                )
            ids.append(name)
    return ids


register_envs()
