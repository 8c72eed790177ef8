"""What each seat is given at the start of an episode, and which tools each seat may call."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from tau2.episode._actor import SeatContext
from tau2.episode._config import EpisodeConfig, Mode
from tau2.episode._protocol import DONE_SCHEMA
from tau2.tasks import Domain, Task, get_domain, resolve_retrieval
from tau2.world import Side


def settled(task: Task, config: EpisodeConfig) -> EpisodeConfig:
    """`config` with the retrieval configuration an episode of `task` runs under settled: the configured
    one, or the domain's default when it has a knowledge base (what the seats and the evaluation read)."""
    retrieval = resolve_retrieval(get_domain(task.domain), config.retrieval)
    return config if retrieval == config.retrieval else config.model_copy(update={"retrieval": retrieval})


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
    whitelist = user_whitelist(task)
    retrieval = resolve_retrieval(domain, config.retrieval)  # settled already in an episode
    if domain.retrieval is not None and retrieval is not None:
        policy: str | None = domain.retrieval.policy(retrieval, data_dir, task)
    else:
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
                phrasing=domain.phrasing,
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
            phrasing=domain.phrasing,
        ),
        Side.USER: SeatContext(
            seat=Side.USER,
            task=task,
            config=config,
            sides=(Side.USER,),
            tool_schemas=list(_schemas(domain, Side.USER, whitelist)),
            persona_text=persona,
            phrasing=domain.phrasing,
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


def user_whitelist(task: Task) -> frozenset[str] | None:
    """The user tools the task allows (None: every user tool)."""
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
def tool_resolution(
    domain: Domain[Any], sides: tuple[Side, ...], whitelist: frozenset[str] | None
) -> dict[str, Side]:
    """Tool name → side, for every tool a seat holding `sides` may call."""
    return {name: side for side in sides for name in _offered(domain, side, whitelist)}
