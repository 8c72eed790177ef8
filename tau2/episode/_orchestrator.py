"""The asynchronous orchestrator: runs one episode with an actor in every seat, awaiting each actor's turn
and handing it to the episode core (`Episode`), then has the judge grade it (when its verdicts can still
decide the reward) and evaluates it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tau2.episode._actor import Actor, hand_world_view
from tau2.episode._config import EpisodeConfig, Mode
from tau2.episode._episode import Episode, Turn
from tau2.episode._judge import JudgePanel, NLJudge
from tau2.episode._judge_gate import needed_judgement
from tau2.episode._result import EpisodeResult
from tau2.tasks import Task
from tau2.world import Side


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
    judge: NLJudge | JudgePanel | None = None,
    judge_always: bool = False,
) -> EpisodeResult:
    """Run `task` once and evaluate it. The user actor is required in interactive mode, unused in solo.

    `persona_text` overrides the task's persona; `judge` (or a panel of judges) grades the task's
    natural-language assertions, when a deterministic part of the reward has not already failed
    (`judge_always`: whatever the rest says).
    A task whose initialisation fails raises `TaskSetupError`; a perturbation prepared before the episode
    that fails (a paraphrase of the brief refused) raises `InfrastructureError`.
    """
    actors = {Side.AGENT: agent}
    if config.mode is not Mode.SOLO:
        if user is None:
            raise ValueError("interactive mode needs a user actor")
        actors[Side.USER] = user
    episode = await Episode.create(task, config, data_dir=data_dir, persona_text=persona_text)
    await take_turns(episode, actors, await start_actors(episode, actors))
    judgement = await needed_judgement(judge, episode, always=judge_always)
    return episode.result(agent_label=agent_label, user_label=user_label, judgement=judgement)


async def start_actors(episode: Episode, actors: Mapping[Side, Actor]) -> Turn | None:
    """Start the actors of the seats they hold (an actor that judges the world itself is then handed a
    read-only view of it), then the conversation: its first turn, or None when an actor failed to start
    (which ends the episode)."""
    for seat in episode.seats:
        actor = actors.get(seat)
        if actor is None:
            continue
        try:
            await actor.start(episode.contexts[seat])
            hand_world_view(actor, episode.world_view())
        except Exception as error:
            episode.fail(seat, error)
            return None
    return episode.start()


async def take_turns(episode: Episode, actors: Mapping[Side, Actor], turn: Turn | None) -> Turn | None:
    """Let the actors take their turns from `turn` on: None once the episode is over, or the first turn of
    a seat without an actor (played from outside)."""
    while turn is not None and turn.seat in actors:
        try:
            action = await actors[turn.seat].act(turn.observation)
        except Exception as error:
            episode.fail(turn.seat, error)
            return None
        turn = episode.apply(action)
    return turn
