"""One registry of actor kinds: the built-ins, kinds registered in code (by `register_actor` or its
decorator form), kinds installed by other packages (entry points `actor.NAME` of the `tau2.plugins`
group), and local `module:attribute` or `file.py:attribute` references; the same mechanism
(`tau2._registry`) finds every other kind of plugin.

Installed kinds and the LLM kinds are imported only when first used, so offline runs never load litellm.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import overload

from tau2._registry import Registry
from tau2.actors._prompts import (
    LLM_PROMPT_VERSION,
    SOLO_OPENING,
    agent_system_prompt,
    solo_system_prompt,
    user_system_prompt,
)
from tau2.episode import Actor, ActorSpec, Mode
from tau2.errors import UserInputError
from tau2.llm import ModelSpec
from tau2.tasks import UserInstructions
from tau2.world import Side

ActorFactory = Callable[[ActorSpec, Mode], Actor]
"""Builds an actor for one seat from its spec and the episode mode."""

PromptTemplate = Callable[[Side, Mode, bool], str]
"""The system-prompt template a kind uses for a seat, a mode, and whether the customer only talks (holds no
tools); runs store its hash to notice a changed prompt on resume."""


class ModelUse(StrEnum):
    """Whether a kind talks to a model, and so whether the model options apply to it."""

    NONE = "none"
    OPTIONAL = "optional"
    REQUIRED = "required"


@dataclass(frozen=True)
class ActorKind:
    """A kind of actor: the seats it can fill, whether it needs a model, and how to build it."""

    name: str
    factories: Mapping[Side, ActorFactory]
    model: ModelUse = ModelUse.NONE
    prompt_template: PromptTemplate | None = None
    description: str = ""
    pairs_with: frozenset[str] | None = None
    """Kinds of the other seat this kind can work with (None = any): the scripted user, for one, only
    understands the offline request format, so an LLM agent facing it can never solve a task; a kind that
    speaks the format names `scripted` here."""
    prompt_version: str | None = None
    """The version of the kind's prompt templates, recorded in a run's manifest beside their hashes (bump
    it whenever a template's text changes)."""
    seats: frozenset[Side] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", frozenset(self.factories))

    def check(self, spec: ActorSpec, seat: Side) -> None:
        """Refuse a spec this kind cannot take for `seat`: a missing or an unwanted model."""
        if self.model is ModelUse.REQUIRED and spec.model is None:
            raise UserInputError(
                f"--{seat.value} {self.name} needs --{seat.value}-model (no model is chosen for you)"
            )
        if self.model is ModelUse.NONE and spec.model is not None:
            raise UserInputError(
                f"--{seat.value}-model, --{seat.value}-api-base and --{seat.value}-arg do not apply to "
                f"actor kind {self.name!r}, which takes no model"
            )


def _accept(name: str, target: object) -> ActorKind:
    """An `ActorKind` as is; a bare factory `(spec, mode) -> Actor` fills either seat, model optional."""
    if isinstance(target, ActorKind):
        return target if target.name == name else dataclasses.replace(target, name=name)
    if callable(target):
        return ActorKind(name, {Side.AGENT: target, Side.USER: target}, ModelUse.OPTIONAL)
    raise UserInputError(f"actor kind {name!r} names neither an ActorKind nor a factory")


def _unknown(name: str, names: list[str]) -> UserInputError:
    return UserInputError(f"unknown actor kind {name!r} (kinds: {', '.join(names)})")


_KINDS: Registry[ActorKind] = Registry("actor kind", "actor", _accept, _unknown, legacy_group="tau2.actors")


@overload
def register_actor(kind: ActorKind) -> ActorKind: ...


@overload
def register_actor(
    kind: str,
    seats: Side | Collection[Side],
    *,
    model: ModelUse = ModelUse.NONE,
    prompt_template: PromptTemplate | None = None,
    description: str = "",
    pairs_with: Collection[str] | None = None,
) -> Callable[[ActorFactory], ActorFactory]: ...


def register_actor(
    kind: ActorKind | str,
    seats: Side | Collection[Side] = (),
    *,
    model: ModelUse = ModelUse.NONE,
    prompt_template: PromptTemplate | None = None,
    description: str = "",
    pairs_with: Collection[str] | None = None,
) -> ActorKind | Callable[[ActorFactory], ActorFactory]:
    """Make `kind` available by its name (a later registration of the same name replaces it) and return
    it; or, given a name and the seats it fills, a decorator registering a factory as that kind."""
    if isinstance(kind, ActorKind):
        return _KINDS.register(kind.name, kind)
    name, sides = kind, frozenset({seats} if isinstance(seats, Side) else seats)
    if not sides:
        raise ValueError(f"actor kind {name!r}: name the seats it fills")
    accepted = None if pairs_with is None else frozenset(pairs_with)

    def decorate(factory: ActorFactory) -> ActorFactory:
        factories = dict.fromkeys(sorted(sides), factory)
        _KINDS.register(name, ActorKind(name, factories, model, prompt_template, description, accepted))
        return factory

    return decorate


def actor_kind(name: str) -> ActorKind:
    """The kind called `name`: registered, installed, or a `module:attribute` reference."""
    return _KINDS.get(name)


def all_kinds() -> list[str]:
    """Names of every registered or installed kind, sorted."""
    return _KINDS.names()


def actor_kinds(seat: Side) -> list[str]:
    """The registered and installed kinds that can fill `seat`, sorted (an installed kind that fails to
    load is left out here and reported when it is asked for)."""
    names = []
    for name in all_kinds():
        try:
            if seat in actor_kind(name).seats:
                names.append(name)
        except UserInputError:
            continue
    return names


def make_actor(spec: ActorSpec, seat: Side, mode: Mode = Mode.INTERACTIVE) -> Actor:
    """Build the actor `spec` describes for `seat`; an unknown kind, a wrong seat or a model that does not
    fit the kind is a `UserInputError`."""
    kind = checked_kind(spec, seat)
    return kind.factories[seat](spec, mode)


def checked_kind(spec: ActorSpec, seat: Side) -> ActorKind:
    """The kind of `spec`, after checking it can fill `seat` with the model options given."""
    if not _KINDS.knows(spec.kind):
        raise UserInputError(
            f"unknown {seat.value} kind {spec.kind!r} ({seat.value} kinds: {', '.join(actor_kinds(seat))})"
        )
    kind = actor_kind(spec.kind)
    if seat not in kind.seats:
        seats = " and ".join(sorted(side.value for side in kind.seats))
        raise UserInputError(
            f"actor kind {spec.kind!r} is for the {seats} seat "
            f"({seat.value} kinds: {', '.join(actor_kinds(seat))})"
        )
    kind.check(spec, seat)
    return kind


def pairing_warning(agent: ActorSpec, user: ActorSpec | None) -> str | None:
    """Why the two seats' kinds cannot work together, as either kind declares it; None when they can. A kind
    that names the other among its own partners vouches for the pair (a third-party agent speaking the
    offline request format names `scripted`)."""
    if user is None:
        return None
    for this, other in ((agent, user), (user, agent)):
        accepted = actor_kind(this.kind).pairs_with
        vouched = this.kind in (actor_kind(other.kind).pairs_with or ())
        if accepted is not None and other.kind not in accepted and not vouched:
            return (
                f"actor kind {this.kind!r} works only with {', '.join(sorted(accepted))} in the other seat, "
                f"not {other.kind!r}: its episodes are likely to fail whatever the {other.kind} does"
            )
    return None


def _oracle(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._oracle import OracleAgent

    return OracleAgent(spec)


def _null(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._null import NullAgent

    return NullAgent(spec)


def _transfer(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._transfer import TransferAgent

    return TransferAgent(spec)


def _scripted(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._scripted import ScriptedUser

    return ScriptedUser(spec)


def _human(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._human import HumanActor

    return HumanActor(spec)


def _llm_agent(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._llm import LLMAgent, SoloAgent

    seat = SoloAgent if mode is Mode.SOLO else LLMAgent
    return seat(_model_of(spec), text_tool_calls=spec.text_tool_calls)


def _llm_user(spec: ActorSpec, mode: Mode) -> Actor:
    from tau2.actors._llm import LLMUser

    return LLMUser(_model_of(spec), text_tool_calls=spec.text_tool_calls)


def _model_of(spec: ActorSpec) -> ModelSpec:
    if spec.model is None:
        raise UserInputError(f"actor kind {spec.kind!r} needs a model")
    return spec.model


def llm_prompt_template(seat: Side, mode: Mode, talk_only: bool) -> str:
    """The LLM seats' system prompt with placeholders where task and policy text go."""
    if seat is Side.USER:
        scenario = UserInstructions(
            reason_for_call="{reason}",
            known_info="{known}",
            unknown_info="{unknown}",
            task_instructions="{instructions}",
        )
        return user_system_prompt(scenario, "{persona}", talk_only=talk_only)
    if mode is Mode.SOLO:
        return solo_system_prompt("{policy}", "{ticket}", "{plan}") + "\n\n" + SOLO_OPENING
    return agent_system_prompt("{policy}", "{plan}")


for _kind in (
    ActorKind("oracle", {Side.AGENT: _oracle}, description="follows the task's reference solution"),
    ActorKind("null", {Side.AGENT: _null}, description="does nothing useful (a lower bound)"),
    ActorKind("transfer", {Side.AGENT: _transfer}, description="hands every customer to a human at once"),
    ActorKind(
        "scripted",
        {Side.USER: _scripted},
        description="a customer that follows the oracle's requests",
        pairs_with=frozenset({"oracle", "null", "transfer", "human"}),
    ),
    ActorKind("human", {Side.AGENT: _human, Side.USER: _human}, description="a person at the terminal"),
    ActorKind(
        "llm",
        {Side.AGENT: _llm_agent, Side.USER: _llm_user},
        ModelUse.REQUIRED,
        llm_prompt_template,
        "a language model through litellm",
        prompt_version=LLM_PROMPT_VERSION,
    ),
):
    register_actor(_kind)
