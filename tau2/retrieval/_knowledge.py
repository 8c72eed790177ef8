"""A knowledge domain's declaration: its documents, its retrieval configurations (each a list of engines,
with how their search tools are presented) and the engines it also offers alone, its default, and how it
writes the agent's instructions. `Knowledge.support` turns it into the domain's `RetrievalSupport`: the
configured tools, the instructions, and the documents an agent was shown."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tau2.errors import UserInputError
from tau2.retrieval._catalog import get_engine
from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.retrieval._engine import Engine, Retriever, SearchTool, search_tool
from tau2.tasks import Domain, RetrievalSupport, Task
from tau2.world import EmbedderConfig, RetrievalConfig, Side, ToolKind, ToolSet


@dataclass(frozen=True)
class Use:
    """One engine of a configuration, and how its search tool (if it ranks) is presented."""

    engine: str
    search: SearchTool = field(default_factory=SearchTool)


@dataclass(frozen=True)
class Configuration:
    """A retrieval configuration a knowledge domain offers: its engines, in the order their tools come."""

    name: str
    uses: tuple[Use, ...]
    template: str = ""
    """What the domain's `instructions` writes the agent's instructions from (e.g. a template's file
    name); empty for an engine offered alone."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Anything else the domain keeps with the configuration (its instructions and imports read it)."""

    @classmethod
    def of(cls, name: str, *engines: str | Use, template: str = "", **details: Any) -> Configuration:
        """A configuration of engines given by name (a ranking one searched with `KB_search`) or as `Use`s."""
        uses = tuple(Use(engine) if isinstance(engine, str) else engine for engine in engines)
        return cls(name, uses, template, details)

    @property
    def engines(self) -> tuple[Engine, ...]:
        """Its engines, looked up by name."""
        return tuple(get_engine(use.engine) for use in self.uses)

    @property
    def embeddings(self) -> bool:
        """Whether one of its engines needs an embeddings endpoint."""
        return any(engine.embeddings for engine in self.engines)

    def tool_names(self) -> tuple[str, ...]:
        """The retrieval tools it offers the agent, in order."""
        return tuple(
            name
            for use, engine in zip(self.uses, self.engines, strict=True)
            for name in engine.tool_names(use.search)
        )


Instructions = Callable[[Configuration, RetrievalConfig, Path | None, Sequence[Document] | None], str]
"""The agent's instructions under a configuration: given it, the run's settings, the data directory and
the documents its engines place in the instructions (None: none placed, or no task yet)."""

Calls = Sequence[tuple[str, Mapping[str, Any], str]]
"""An agent's tool calls as (tool name, arguments, answer text)."""


@dataclass(frozen=True)
class Knowledge:
    """What a knowledge domain declares: where its documents come from, which configurations (and engines
    alone) it allows, its default, and how it instructs the agent."""

    documents: Callable[[Path | None], KnowledgeBase]
    """The knowledge base of a data directory (None: the domain's own data), read once."""
    configurations: tuple[Configuration, ...]
    default: str
    """The configuration of a run that names none."""
    instructions: Instructions
    required: Callable[[Task], list[str]]
    """The documents a task needs, by title or id."""
    engines: tuple[str, ...] = ()
    """Engines also offered alone, each as a configuration of its own name (with an empty template)."""
    recorded: Callable[[str | None, Mapping[str, Any]], RetrievalConfig] | None = None
    """How a τ²-bench results file's configuration reads as ours (default: its name and `top_k`)."""

    def offered(self) -> dict[str, Configuration]:
        """Every configuration by name: the declared ones, then each engine offered alone."""
        named = {found.name: found for found in self.configurations}
        for engine in self.engines:
            named.setdefault(engine, Configuration.of(engine, engine))
        return named

    def configuration(self, config: RetrievalConfig) -> Configuration:
        """The configuration `config` names; unknown names and a missing or unused embedder are refused."""
        offered = self.offered()
        found = offered.get(config.name)
        if found is None:
            raise UserInputError(
                f"--retrieval {config.name}: not a retrieval configuration (available: {', '.join(offered)})"
            )
        if found.embeddings and config.embedder is None:
            raise UserInputError(
                f"--retrieval {config.name}: searches by embeddings; give --embedding-model (and "
                "--embedding-api-base for an endpoint other than OpenAI's)"
            )
        if not found.embeddings and config.embedder is not None:
            raise UserInputError(
                f"--embedding-model: the {config.name} configuration does not search by embeddings"
            )
        return found

    def toolset(self, config: RetrievalConfig, data_dir: Path | None) -> ToolSet:
        """The agent's retrieval tools under `config`, in its configuration's order, each engine's index
        built once per knowledge base (and embeddings endpoint)."""
        chosen = self.configuration(config)
        knowledge = self.documents(data_dir)
        tools = ToolSet(Side.AGENT)
        add = tools.tool(ToolKind.READ)
        for use, engine in zip(chosen.uses, chosen.engines, strict=True):
            retriever = _retriever(engine, knowledge, config.embedder if engine.embeddings else None)
            if engine.search_tool:
                add(search_tool(retriever.search, config.top_k, use.search))
            for tool in retriever.tools(config.top_k):
                add(tool)
        return tools

    def placed(
        self, chosen: Configuration, knowledge: KnowledgeBase, task: Task | None
    ) -> Sequence[Document] | None:
        """The documents the configuration's engines place in the instructions (None: none)."""
        required = None if task is None else knowledge.resolve_all(self.required(task))
        placed: list[Document] | None = None
        for engine in chosen.engines:
            found = None if engine.placed is None else engine.placed(knowledge, required)
            if found is not None:
                placed = [
                    *(placed or []),
                    *(document for document in found if document not in (placed or [])),
                ]
        return placed

    def policy(self, config: RetrievalConfig, data_dir: Path | None, task: Task | None) -> str:
        """The agent's instructions under `config`, for `task` (None: before a task, as a manifest hashes)."""
        chosen = self.configuration(config)
        return self.instructions(
            chosen, config, data_dir, self.placed(chosen, self.documents(data_dir), task)
        )

    def retrieved(
        self, config: RetrievalConfig, data_dir: Path | None, task: Task, calls: Calls
    ) -> list[str]:
        """The documents the agent was shown: those its instructions held, then those its calls showed."""
        chosen = self.configuration(config)
        knowledge = self.documents(data_dir)
        seen = dict.fromkeys(document.id for document in self.placed(chosen, knowledge, task) or ())
        by_tool = {
            name: engine
            for use, engine in zip(chosen.uses, chosen.engines, strict=True)
            for name in engine.tool_names(use.search)
        }
        for name, arguments, text in calls:
            engine = by_tool.get(name)
            if engine is not None:
                seen.update(dict.fromkeys(engine.shown(knowledge, name, arguments, text)))
        return list(seen)

    def tool_names(self) -> frozenset[str]:
        """Every retrieval tool a configuration may add."""
        return frozenset(name for found in self.offered().values() for name in found.tool_names())

    def recorded_config(self, name: str | None, options: Mapping[str, Any]) -> RetrievalConfig:
        """The configuration a τ²-bench results file records, as ours (the domain's own reading, if any)."""
        if self.recorded is not None:
            return self.recorded(name, options)
        given = self.default if name is None else name
        if given not in self.offered():
            raise UserInputError(
                f"retrieval_config: {name!r} is not a retrieval configuration this domain offers"
            )
        try:
            return RetrievalConfig.model_validate(
                {"name": given, "top_k": options.get("top_k", 10)}, strict=True
            )
        except ValidationError as error:
            problem = error.errors()[0]
            where = "_".join(str(part) for part in problem["loc"])
            raise UserInputError(f"retrieval_config_kwargs: {where}: {problem['msg']}") from None

    def support(self, configure: Callable[[RetrievalConfig, Path | None], Domain[Any]]) -> RetrievalSupport:
        """The world's view of this declaration; `configure` is the domain's own: the domain under a
        configuration (its tools with `toolset`'s first, typically), built once per configuration."""
        offered = self.offered()
        if self.default not in offered:
            raise ValueError(f"the default retrieval configuration {self.default!r} is not offered")
        return RetrievalSupport(
            names=tuple(offered),
            default=RetrievalConfig(name=self.default),
            configure=configure,
            policy=self.policy,
            retrieved=self.retrieved,
            required=self.required,
            tools=self.tool_names(),
            recorded=self.recorded_config,
        )


@cache
def _retriever(engine: Engine, knowledge: KnowledgeBase, embedder: EmbedderConfig | None) -> Retriever:
    """An engine's index of a knowledge base, built once per endpoint."""
    return engine.build(knowledge, embedder)


def describe_engines(chosen: Configuration, placed: Sequence[Document] | None) -> str:
    """What a domain that writes instructions for any engine can append to its policy: what each engine's
    tools do, and the documents placed in the instructions."""
    parts = [engine.instructions for engine in chosen.engines if engine.instructions]
    if placed is not None:
        parts.append(inline(placed) if placed else "(No documents provided)")
    return "\n\n".join(parts)


def inline(documents: Sequence[Document]) -> str:
    """Documents as instructions hold them: each a `## title` heading over its content, rules between."""
    return "\n\n---\n\n".join(f"## {document.title}\n\n{document.content}" for document in documents)
