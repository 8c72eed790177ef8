"""Tools and env functions: typed Python functions registered with an owner side and a kind.

A tool's argument model and its JSON schema for LLMs are derived from the function's signature and
docstring, so the Python function is the single source of truth for what an actor may call.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from tau2.errors import ErrorCode, ToolError

F = TypeVar("F", bound=Callable[..., Any])


class Side(StrEnum):
    """The two sides of the dual-control world; a tool belongs to exactly one."""

    AGENT = "agent"
    USER = "user"

    @property
    def other(self) -> Side:
        """The opposite side."""
        return Side.USER if self is Side.AGENT else Side.AGENT


class ToolKind(StrEnum):
    """Whether a tool only reads state, writes it, or does neither (e.g. a transfer)."""

    READ = "read"
    WRITE = "write"
    GENERIC = "generic"


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^(Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument descriptions."""
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    arguments: dict[str, str] = {}
    current: str | None = None
    section = "description"
    for line in lines:
        if _ARGS_HEADER.match(line):
            section = "args"
            continue
        if _SECTION_HEADER.match(line):
            section = "other"  # Returns:, Raises:, … are not shown to actors
            continue
        if section == "description":
            description.append(line)
            continue
        if section == "other":
            continue
        match = _ARG_LINE.match(line)
        if match and line.startswith(("    ", "\t")) and not line.startswith(("        ", "\t\t")):
            current = match.group(1)
            arguments[current] = match.group(2).strip()
        elif current and line.strip():
            arguments[current] = f"{arguments[current]} {line.strip()}".strip()
    return " ".join(part.strip() for part in description if part.strip()), arguments


def _arguments_model(function: Callable[..., Any], arg_docs: Mapping[str, str]) -> type[BaseModel]:
    """Build a strict pydantic model of a function's parameters after the leading state parameter."""
    hints = get_type_hints(function)
    parameters = list(inspect.signature(function).parameters.values())[1:]
    fields: dict[str, Any] = {}
    for parameter in parameters:
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (
            annotation,
            Field(default, description=arg_docs.get(parameter.name)),
        )
    config = ConfigDict(extra="forbid", strict=True, frozen=True)
    model_name = "".join(part.title() for part in function.__name__.split("_")) + "Arguments"
    model: type[BaseModel] = create_model(model_name, __config__=config, **fields)
    return model


@dataclass(frozen=True)
class Tool:
    """A function of one side, callable by actors (tools) or only by tasks (env functions)."""

    name: str
    side: Side
    kind: ToolKind
    description: str
    function: Callable[..., Any]
    arguments_model: type[BaseModel]
    is_tool: bool = True

    @classmethod
    def from_function(
        cls, function: Callable[..., Any], side: Side, kind: ToolKind, *, is_tool: bool = True
    ) -> Tool:
        """Register a function whose first parameter is the domain state."""
        description, arg_docs = parse_docstring(function.__doc__)
        return cls(
            name=function.__name__,
            side=side,
            kind=kind,
            description=description,
            function=function,
            arguments_model=_arguments_model(function, arg_docs),
            is_tool=is_tool,
        )

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate raw arguments, raising `ToolError(invalid_argument)` with a readable reason."""
        try:
            model = self.arguments_model.__pydantic_validator__.validate_python(arguments or {})
        except Exception as exc:  # pydantic.ValidationError, or a non-mapping payload
            raise ToolError(ErrorCode.INVALID_ARGUMENT, _describe_validation(self.name, exc)) from None
        return dict(model.__dict__)

    def json_schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema shown to LLM actors."""
        schema = self.arguments_model.model_json_schema()
        parameters = _inline_refs(schema, schema.pop("$defs", {}))
        parameters.setdefault("properties", {})
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


def _inline_refs(node: Any, definitions: Mapping[str, Any]) -> Any:
    """Replace `$ref`s by the definitions they point to and drop titles: some providers reject
    references in tool schemas, and titles only repeat the property names."""
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        merged = {**definitions[reference.removeprefix("#/$defs/")], **node}
        merged.pop("$ref")
        return _inline_refs(merged, definitions)
    return {
        key: _inline_refs(value, definitions)
        for key, value in node.items()
        if not (key == "title" and isinstance(value, str))
    }


def _describe_validation(name: str, exc: Exception) -> str:
    """One-line summary of why arguments for `name` were rejected."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for error in errors():
            location = ".".join(str(part) for part in error.get("loc", ())) or "arguments"
            parts.append(f"{location}: {error.get('msg', 'invalid')}")
        return f"invalid arguments for {name}: " + "; ".join(parts)
    return f"invalid arguments for {name}: {exc}"


@dataclass
class ToolSet:
    """The tools and env functions one domain module declares for one side.

    Use its decorators on plain functions: `@user_tools.tool(ToolKind.WRITE)`,
    `@user_tools.env_function()`, `@user_tools.assertion()`.
    """

    side: Side
    entries: dict[str, Tool] = field(default_factory=dict)

    def _add(self, entry: Tool) -> None:
        if entry.name in self.entries:
            raise ValueError(f"{self.side} function {entry.name!r} is declared twice")
        self.entries[entry.name] = entry

    def tool(self, kind: ToolKind) -> Callable[[F], F]:
        """Declare an actor-callable tool of this side."""

        def register(function: F) -> F:
            self._add(Tool.from_function(function, self.side, kind))
            return function

        return register

    def env_function(self) -> Callable[[F], F]:
        """Declare a function used only by task initialisation (never shown to actors)."""

        def register(function: F) -> F:
            self._add(Tool.from_function(function, self.side, ToolKind.WRITE, is_tool=False))
            return function

        return register

    def assertion(self) -> Callable[[F], F]:
        """Declare an assertion, used by evaluation: an env function returning a bool, or an `Observation`
        (the bool and the value it compared, which reports then show beside a failure)."""

        def register(function: F) -> F:
            self._add(Tool.from_function(function, self.side, ToolKind.READ, is_tool=False))
            return function

        return register

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.entries.values())


class ToolTable:
    """All functions of a domain: actor tools (names unique across sides) and env functions per side.

    Every tool of a side is also usable as an env function of that side (task files rely on this).
    """

    def __init__(self, *toolsets: ToolSet) -> None:
        self._tools: dict[str, Tool] = {}
        self._env: dict[Side, dict[str, Tool]] = {Side.AGENT: {}, Side.USER: {}}
        for toolset in toolsets:
            for entry in toolset:
                side_env = self._env[entry.side]
                if entry.name in side_env:
                    raise ValueError(f"{entry.side} function {entry.name!r} is declared twice")
                side_env[entry.name] = entry
                if entry.is_tool:
                    if entry.name in self._tools:
                        raise ValueError(f"tool name {entry.name!r} is used by both sides")
                    self._tools[entry.name] = entry

    def tool(self, name: str) -> Tool | None:
        """The actor tool called `name`, of either side."""
        return self._tools.get(name)

    def env_function(self, side: Side, name: str) -> Tool | None:
        """The env function (or tool) `name` of `side`."""
        return self._env[side].get(name)

    def tools(self, side: Side | None = None) -> list[Tool]:
        """Actor tools in declaration order, optionally of one side."""
        return [entry for entry in self._tools.values() if side is None or entry.side is side]

    def env_functions(self, side: Side) -> list[Tool]:
        """Every function callable on `side` by tasks (env functions and tools)."""
        return list(self._env[side].values())

    def schemas(self, sides: tuple[Side, ...]) -> list[dict[str, Any]]:
        """JSON schemas of the tools of the given sides, for an LLM seat."""
        return [entry.json_schema() for side in sides for entry in self.tools(side)]
