"""Catalog extensions: TOML files that add groups, stages, precedences, subtasks and intents to a domain's
subtask catalog, checked against the domain's tool table when they load (docs/generator.md).

Calls name their parameters (`{customer_id}`, `=allowance_gb + 0.1`; see `tau2.tasks._parameters`), which
each target's catalog supplies when the extension is layered onto it (`tau2.tasks.extend_catalog`).
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from enum import Enum
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tau2._jsonfile import field_path, parse_toml, read_bytes_bounded
from tau2._registry import Registry
from tau2.errors import UnknownDomainError, UserInputError
from tau2.tasks._catalog import Group, Intent, Precedence, Subtask
from tau2.tasks._domain import Domain, get_domain
from tau2.tasks._parameters import ParameterError, referenced
from tau2.tasks._task import EnvCall
from tau2.world import Tool, ToolKind, ToolTable

"""Packages ship catalog extensions under this entry-point group; each names the path of a TOML file."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOML_POSITION = re.compile(r"^(?P<reason>.*?)\s*\(at (?P<where>line \d+, column \d+|end of document)\)$")
_MAX_BYTES = 1 << 20


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IntentExtension(_Frozen):
    """Groups (and prerequisites among them) appended to an intent the catalog already has."""

    name: str
    groups: tuple[str, ...] = ()
    prerequisites: tuple[str, ...] = ()


class ExtensionFile(_Frozen):
    """What a catalog-extension file holds (TOML tables named in the singular: `[[subtask]]`, …)."""

    name: str
    """Identifies the extension in suites and catalog versions."""
    version: str
    extends: str
    """The domain whose catalog this extends."""
    runs_in: str | None = None
    """The domain the generated tasks name and run in when it is not the extended one: a domain offering
    the extended one's tools and more (e.g. services the extended domain lacks). The file's calls are
    checked against its tool table; None: the extended domain."""
    description: str = ""
    max_transfer_share: float | None = Field(default=None, ge=0, le=1)
    """The share of each sampling bin's tasks that may be transfers, applied when a generation layers this
    extension and gives no `max_transfer_share` of its own (an extension of unfixable faults sets it so
    that transfers do not dominate a suite)."""
    stages: tuple[str, ...] = ()
    """New workflow stages, after the catalog's own (precedences place them)."""
    facts: dict[str, str] = Field(default_factory=dict)
    """Constant facts for text templates."""
    groups: tuple[Group, ...] = Field(default=(), alias="group")
    fix_order: tuple[Precedence, ...] = ()
    injection_order: tuple[Precedence, ...] = ()
    subtasks: tuple[Subtask, ...] = Field(default=(), alias="subtask")
    intents: tuple[Intent, ...] = Field(default=(), alias="intent")
    intent_extensions: tuple[IntentExtension, ...] = Field(default=(), alias="extend_intent")

    @field_validator("name", "version")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError(f"{value!r} must be letters, digits, '.', '_' or '-' (no spaces or '+')")
        return value


class ExtensionRecord(_Frozen):
    """How a suite records an extension it was generated with."""

    name: str
    version: str
    sha256: str


@dataclass(frozen=True)
class CatalogExtension:
    """A loaded catalog extension: its content, where it came from, its hash and the tools it was checked
    against (which its calls are validated against again once their parameters are filled)."""

    content: ExtensionFile
    origin: str
    """The file (or entry point) it was read from, for messages."""
    sha256: str
    tools: ToolTable = field(repr=False, compare=False)

    @property
    def record(self) -> ExtensionRecord:
        """The name, version and content hash a suite records."""
        return ExtensionRecord(name=self.content.name, version=self.content.version, sha256=self.sha256)


class _Role(Enum):
    """What a call of an extension must name: an init env function, an assertion, or a seat's tool."""

    INIT = "env function"
    ASSERTION = "assertion"
    STEP = "tool"


def load_catalog_extension(path: Path, domain: Domain[Any], origin: str | None = None) -> CatalogExtension:
    """Read and check an extension file for `domain`; any problem is one `UserInputError` line naming the
    file and the entry (an unknown tool or argument, a malformed parameter reference, a bad field)."""
    where = origin or str(path)
    raw = read_bytes_bounded(path, _MAX_BYTES, "TOML")
    try:
        data = parse_toml(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserInputError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        match = _TOML_POSITION.match(str(error))
        detail = f"{match['where']}: invalid TOML: {match['reason']}" if match else f"invalid TOML: {error}"
        raise UserInputError(f"{where}: {detail}") from None
    try:
        content = ExtensionFile.model_validate(data)
    except ValidationError as error:
        raise UserInputError(f"{where}: {_describe(error, data)}") from None
    if domain.name not in (content.extends, content.runs_in):
        raise UserInputError(f"{where}: extends {content.extends!r}, not the {domain.name!r} domain")
    runs_in = content.runs_in
    tools = domain.tools if runs_in in (None, domain.name) else _domain_of(where, runs_in).tools
    problem = _call_problem(content, tools)
    if problem is not None:
        raise UserInputError(f"{where}: {problem}")
    return CatalogExtension(content, where, hashlib.sha256(raw).hexdigest(), tools)


def _domain_of(where: str, name: str) -> Domain[Any]:
    """The domain an extension's tasks run in; an unknown one is the file's error."""
    try:
        return get_domain(name)
    except UnknownDomainError as error:
        raise UserInputError(f"{where}: runs_in: {error}") from None


def _accept(name: str, target: object) -> Path:
    if not isinstance(target, (str, os.PathLike)):
        raise UserInputError(f"catalog extension {name!r} names a {type(target).__name__}, not a path")
    return Path(target)


def _unknown(name: str, names: list[str]) -> UserInputError:
    return UserInputError(
        f"--catalog-extension: {name!r} is neither a file nor an installed extension "
        f"(installed: {', '.join(names) or 'none'})"
    )


_EXTENSIONS: Registry[Path] = Registry(
    "catalog extension", "catalog_extension", _accept, _unknown, legacy_group="tau2.catalog_extensions"
)


def resolve_catalog_extension(reference: str) -> tuple[Path, str]:
    """The file a `--catalog-extension` value names (a path, an installed extension's entry-point name, or a
    `module:attribute` reference to a path), and how to name it in messages."""
    path = Path(reference)
    if path.is_file():
        return path, reference
    target = _EXTENSIONS.get(reference)
    return target, f"{reference} ({target})"


def installed_catalog_extensions() -> dict[str, EntryPoint]:
    """Installed catalog extensions by entry-point name."""
    return dict(_EXTENSIONS.installed)


def _call_problem(content: ExtensionFile, tools: ToolTable) -> str | None:
    """The first call of the file that names an unknown function or argument, or a malformed parameter."""
    for subtask in content.subtasks:
        calls: list[tuple[str, _Role, EnvCall]] = [
            *((f"init[{i}]", _Role.INIT, call) for i, call in enumerate(subtask.init)),
            *((f"checks[{i}]", _Role.ASSERTION, call) for i, call in enumerate(subtask.checks)),
            *((f"solution[{i}]", _Role.STEP, call) for i, call in enumerate(subtask.solution)),
            *((f"extra_assertions[{i}]", _Role.ASSERTION, c) for i, c in enumerate(subtask.extra_assertions)),
            *(
                (f"transfer_assertions[{i}]", _Role.ASSERTION, call)
                for i, call in enumerate(subtask.transfer_assertions)
            ),
        ]
        for place, role, call in calls:
            problem = _check_call(tools, call, role)
            if problem is not None:
                return f"subtask {subtask.name!r}: {place}: {problem}"
    for intent in content.intents:
        for index, call in enumerate(intent.setup):
            problem = _check_call(tools, call, _Role.INIT)
            if problem is not None:
                return f"intent {intent.name!r}: setup[{index}]: {problem}"
        for kind, checks in (("success", intent.success), ("failure", intent.failure)):
            for index, call in enumerate(checks):
                problem = _check_call(tools, call, _Role.ASSERTION)
                if problem is not None:
                    return f"intent {intent.name!r}: {kind}[{index}]: {problem}"
    return None


def _check_call(tools: ToolTable, call: EnvCall, role: _Role) -> str | None:
    """Why a call does not fit the tool table, or None."""
    side = call.side.value
    if role is _Role.STEP:
        found = tools.tool(call.name)
        entry = found if found is not None and found.side is call.side else None
        known = [tool.name for tool in tools.tools(call.side)]
    else:
        entry = tools.env_function(call.side, call.name)
        known = [
            tool.name for tool in tools.env_functions(call.side) if role is _Role.INIT or _is_assertion(tool)
        ]
    if entry is None or (role is _Role.ASSERTION and not _is_assertion(entry)):
        near = get_close_matches(call.name, known, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return f"no {side} {role.value} named {call.name!r}{hint}"
    return argument_problem(entry, call.arguments)


def _is_assertion(tool: Tool) -> bool:
    return not tool.is_tool and tool.kind is ToolKind.READ


def argument_problem(tool: Tool, arguments: Mapping[str, Any]) -> str | None:
    """Why `arguments` do not fit `tool`'s argument model, or None. Values holding parameter references or
    expressions are only checked for their syntax here (their values come with a target)."""
    fields = tool.arguments_model.model_fields
    for name in arguments:
        if name not in fields:
            return f"{tool.name}: unknown argument {name!r} (arguments: {', '.join(fields) or 'none'})"
    deferred = set()
    for name, value in arguments.items():
        try:
            referenced(value)
        except ParameterError as error:
            return f"{tool.name}: {name}: {error}"
        if _templated(value):
            deferred.add(name)
    try:
        tool.arguments_model.model_validate(dict(arguments))
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            location = detail["loc"]
            if location and location[0] in deferred:
                continue
            return f"{tool.name}: {field_path(location) or 'arguments'}: {detail['msg']}"
    return None


def _templated(value: Any) -> bool:
    """Whether a value holds an expression or braces, so that it changes once parameters are filled."""
    if isinstance(value, str):
        return value.startswith("=") or "{" in value or "}" in value
    if isinstance(value, list):
        return any(_templated(item) for item in value)
    if isinstance(value, dict):
        return any(_templated(item) for item in value.values())
    return False


def _describe(error: ValidationError, data: Any) -> str:
    """The first validation problem of a file, located by its entry's name where it has one."""
    errors = error.errors(include_url=False)
    detail = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])  # a typo first
    location = list(detail["loc"])
    message = "unknown field" if detail["type"] == "extra_forbidden" else detail["msg"]
    message = message.removeprefix("Value error, ")
    if len(location) >= 2 and isinstance(location[1], int) and isinstance(data.get(location[0]), list):
        entries = data[location[0]]
        entry = entries[location[1]] if location[1] < len(entries) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        label = f"{location[0]} {name!r}" if isinstance(name, str) else f"{location[0]}[{location[1]}]"
        rest = field_path(location[2:])
        return f"{label}: {rest}: {message}" if rest else f"{label}: {message}"
    return f"{field_path(location) or 'file'}: {message}"
