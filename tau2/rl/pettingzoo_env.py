"""A PettingZoo AEC environment of a task with both seats as agents, `agent` and `user`, taking turns under
the half-duplex protocol: the dual-control game as a decentralised POMDP.

Each agent observes exactly what the orchestrator shows its seat (JSON text of the entries since its
previous turn) and acts with a message or a JSON action, as in `tau2.rl.gymnasium_env`. The game is
cooperative: at the end both seats receive the episode's reward. Solo mode is a one-agent game (`agent`).
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tau2.episode import EpisodeConfig, EpisodeResult, Mode
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
from tau2.tasks import Task
from tau2.world import Side


class TextObservation(str):
    """Observation text that also states its dtype, as PettingZoo's API test asks of every observation."""

    __slots__ = ()
    dtype: ClassVar[np.dtype[Any]] = np.dtype(str)


def env(**kwargs: Any) -> AECEnv[str, str, str | None]:
    """The environment wrapped in PettingZoo's checks (order of calls, bounds); see `raw_env`."""
    wrapped: AECEnv[str, str, str | None] = _OrderEnforcing(raw_env(**kwargs))
    return wrapped


def raw_env(**kwargs: Any) -> Tau2AECEnv:
    """The unwrapped environment: `domain` (default telecom), `suite`, `task_id`, `mode`, `persona`,
    `config` (the episode settings, an `EpisodeConfig`), `data_dir`; with no arguments it runs the telecom
    default suite offline."""
    return Tau2AECEnv(**kwargs)


class Tau2AECEnv(AECEnv[str, str, str | None]):  # type: ignore[misc]  # PettingZoo is untyped
    """Both seats of a tau2 task as PettingZoo agents (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "name": "tau2_v0",
        "render_modes": [],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        domain: str = "telecom",
        *,
        suite: str | Path | None = None,
        task_id: str | None = None,
        mode: Mode | str | None = None,
        persona: str | None = None,
        config: EpisodeConfig | None = None,
        data_dir: Path | None = None,
    ) -> None:
        """`config` holds the episode settings (`max_steps`, `max_errors`, …; default: `EpisodeConfig()`);
        `mode`, when given, replaces its mode; each reset gives the episode its own seed."""
        super().__init__()
        self.domain = domain
        config = config or EpisodeConfig()
        self.mode = config.mode if mode is None else Mode(mode)
        seats = [Side.AGENT] if self.mode is Mode.SOLO else [Side.AGENT, Side.USER]
        self.possible_agents = [seat.value for seat in seats]
        self.agents: list[str] = []
        self._chooser = TaskChooser(domain, suite, task_id, persona)
        self._config = config.model_copy(update={"mode": self.mode})
        self._data_dir = data_dir
        self._stepper = EpisodeStepper()
        self._rng: np.random.Generator | None = None
        self._observation_spaces = {
            name: spaces.Text(MAX_OBSERVATION_CHARS, min_length=0, charset=CHARSET)
            for name in self.possible_agents
        }
        self._action_spaces = {
            name: spaces.Text(MAX_ACTION_CHARS, min_length=1, charset=CHARSET)
            for name in self.possible_agents
        }
        self._views: dict[str, SeatView] = {}
        self._observations: dict[str, TextObservation] = {}
        self._task: Task | None = None
        self._result: EpisodeResult | None = None
        self._turns = 0
        self._playing = False
        """Whether a reset succeeded (a game is on, or over with agents still to leave or all gone)."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The text space of the agent's observations."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The text space of the agent's actions."""
        return self._action_spaces[agent]

    @property
    def task(self) -> Task:
        """The task of the current episode."""
        if self._task is None:
            raise RuntimeError("call reset() first")
        return self._task

    @property
    def result(self) -> EpisodeResult | None:
        """The finished episode's full result; None while it runs."""
        return self._result

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Choose a task (the `task_id` option, or one drawn with the seeded generator) and start it. The
        options are kept for later resets only once the episode has started."""
        self._playing = False
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        options = options or {}
        unknown = sorted(set(options) - TaskChooser.OPTIONS)
        if unknown:
            warnings.warn(f"tau2 ignores unknown reset options: {', '.join(unknown)}", stacklevel=2)
        task = self._chooser.choose(self._rng, options)
        config = self._config.model_copy(update={"seed": int(self._rng.integers(2**31))})
        seats: dict[Side, None] = {Side(name): None for name in self.possible_agents}
        labels = {seat: "learner" for seat in seats}
        event = self._stepper.start(task, dict(seats), config, data_dir=self._data_dir, labels=labels)
        self._chooser.keep(options)
        self._task, self._playing = task, True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._views = {name: SeatView(Side(name)) for name in self.agents}
        self._observations = {name: TextObservation("[]") for name in self.agents}
        self._result, self._turns = None, 0
        self.agent_selection = self.agents[0]  # until the episode asks a seat (it may end first)
        self.infos = {name: self._brief(Side(name)) for name in self.agents}
        self._take(event)

    def observe(self, agent: str) -> TextObservation:
        """What the agent saw at (or since) its latest turn."""
        self._check_reset()
        return self._observations[agent]

    def last(self, observe: bool = True) -> tuple[TextObservation | None, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, cumulative reward, flags and info."""
        self._check_in_game()
        result: tuple[TextObservation | None, float, bool, bool, dict[str, Any]] = super().last(observe)
        return result

    def step(self, action: str | None) -> None:
        """Play the selected agent's turn; at the end every seat is terminated (or truncated), rewarded.
        A live agent's action outside the action space's bounds raises `ValueError` and changes nothing."""
        self._check_in_game()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is live: its action must be text, not None")
        turn = parse_action(checked_action(action), f"{agent}-{self._turns + 1}-")
        self._turns += 1
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._take(self._stepper.send(turn))
        self._accumulate_rewards()

    def close(self) -> None:
        """Close the event loop actors would run on (none: both seats are agents of the game)."""
        self._stepper.close()

    def _check_reset(self) -> None:
        if not self._playing:
            raise RuntimeError("no game is on: call reset() first")

    def _check_in_game(self) -> None:
        self._check_reset()
        if not self.agents:
            raise RuntimeError("the game is over and every agent has left it: call reset() for a new one")

    def _take(self, event: Event) -> None:
        """Hand the turn to the seat the event names, or end the game for every seat."""
        if not isinstance(event, EpisodeResult):
            name = event.seat.value
            self._observations[name] = TextObservation(self._views[name].observe(event.observation))
            self.agent_selection = name
            return
        self._result = event
        truncated = is_truncated(event)
        for name in self.agents:
            self._observations[name] = TextObservation(self._views[name].final(event.trajectory))
            self.rewards[name] = event.reward
            self.terminations[name] = not truncated
            self.truncations[name] = truncated
            self.infos[name] = outcome_info(event)

    def _brief(self, seat: Side) -> dict[str, Any]:
        """An agent's info after reset: the task, its brief and its tool schemas."""
        info: dict[str, Any] = {"task_id": self.task.id, "domain": self.domain, "seat": seat.value}
        context = self._stepper.context(seat)
        if context is not None:
            info.update(brief=seat_brief(context), tool_schemas=copy.deepcopy(context.tool_schemas))
        return info


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]  # PettingZoo is untyped
    """PettingZoo's order checks, with `last` left to the environment, which names the mistake (a game
    every agent has left) where the base wrapper would fail on a missing key."""

    def last(self, observe: bool = True) -> tuple[TextObservation | None, float, bool, bool, dict[str, Any]]:
        """The environment's own `last`."""
        result: tuple[TextObservation | None, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result
