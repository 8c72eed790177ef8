"""The shared world of one episode: domain state, coupling rules and the tool table.

Every operation goes through `call` (actor tools) or `run_env_function` (task set-up and assertions);
both validate arguments, check ownership, run the function and return a `ToolResult`. Nothing raises.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tau2.errors import ErrorCode, ToolError
from tau2.world._observation import Observation
from tau2.world._results import ToolResult
from tau2.world._rules import WorldRules
from tau2.world._tools import Side, Tool, ToolKind, ToolTable


class World:
    """One episode's mutable world. Cheap to create from a cached base snapshot."""

    __slots__ = ("domain", "state")

    def __init__(self, domain: WorldRules[Any], state: BaseModel) -> None:
        self.domain = domain
        self.state = state
        if domain.couple is not None:
            domain.couple(state)

    @classmethod
    def create(
        cls, domain: WorldRules[Any], data_dir: Path | None = None, *, base: BaseModel | None = None
    ) -> World:
        """A fresh world on the domain's own data, on the data directory given, or on a copy of `base`, a
        loaded and coupled state of the domain (a renamed database), which the world never changes."""
        if base is not None:
            if domain.fresh_state is not None:
                return cls(domain, domain.fresh_state(base))
            return cls(domain, type(base).model_validate_json(base.__pydantic_serializer__.to_json(base)))
        if domain.fresh_state is not None:
            return cls(domain, domain.fresh_state(_base_state(domain, data_dir)))
        state_type, snapshot = _base_snapshot(domain, data_dir)
        return cls(domain, state_type.model_validate_json(snapshot))

    @property
    def tools(self) -> ToolTable:
        """The domain's tool table."""
        return self.domain.tools

    def call(self, side: Side | str, name: str, arguments: Mapping[str, Any] | None) -> ToolResult:
        """Run actor tool `name` on behalf of `side`."""
        side = side if isinstance(side, Side) else Side(side)
        tool = self.tools.tool(name)
        if tool is None:
            return ToolResult.failure(ErrorCode.UNKNOWN_TOOL, f"no tool named {name!r}")
        if tool.side is not side:
            return ToolResult.failure(
                ErrorCode.WRONG_SEAT,
                f"{name!r} belongs to the {tool.side.value} side, not the {side.value} side",
            )
        return self._run(tool, arguments)

    def run_env_function(
        self, side: Side | str, name: str, arguments: Mapping[str, Any] | None = None
    ) -> ToolResult:
        """Run env function (or tool) `name` of `side`, as task initialisation and evaluation do."""
        side = side if isinstance(side, Side) else Side(side)
        function = self.tools.env_function(side, name)
        if function is None:
            return ToolResult.failure(ErrorCode.UNKNOWN_TOOL, f"no {side.value} env function named {name!r}")
        return self._run(function, arguments)

    def _run(self, function: Tool, arguments: Mapping[str, Any] | None) -> ToolResult:
        try:
            kwargs = function.validate(arguments)
            value = function.function(self.state, **kwargs)
        except ToolError as error:
            return ToolResult.failure(error.code, error.message)
        except Exception as error:  # a bug in a domain function must not escape to actors
            return ToolResult.failure(
                ErrorCode.INTERNAL_ERROR, f"{function.name} failed: {type(error).__name__}: {error}"
            )
        if function.kind is ToolKind.WRITE and self.domain.couple is not None:
            self.domain.couple(self.state)
        content = value.content() if isinstance(value, Observation) else to_jsonable_python(value)
        return ToolResult(ok=True, content=content)

    def snapshot(self) -> bytes:
        """The full state as canonical JSON bytes; immutable, so it can be kept and shared."""
        return self.state.__pydantic_serializer__.to_json(self.state)

    def restore(self, snapshot: bytes) -> None:
        """Put the world back into a state captured by `snapshot`."""
        self.state = type(self.state).model_validate_json(snapshot)

    def fingerprint(self) -> str:
        """A digest equal for two worlds exactly when their states are equal."""
        return hashlib.sha256(self.snapshot()).hexdigest()

    def invariant_violations(self) -> list[str]:
        """Invariants of the domain that the current state breaks (empty when sound)."""
        return self.domain.invariants(self.state) if self.domain.invariants else []


@lru_cache(maxsize=32)
def _base_state(domain: WorldRules[Any], data_dir: Path | None) -> BaseModel:
    """A domain's data loaded once per directory, for domains that copy it themselves (`fresh_state`)."""
    state: BaseModel = domain.load_state(data_dir)
    if domain.couple is not None:
        domain.couple(state)
    return state


@lru_cache(maxsize=32)
def _base_snapshot(domain: WorldRules[Any], data_dir: Path | None) -> tuple[type[BaseModel], bytes]:
    """Load a domain's data once per directory and keep it as a snapshot to validate worlds from."""
    state = domain.load_state(data_dir)
    if domain.couple is not None:
        domain.couple(state)
    return type(state), state.__pydantic_serializer__.to_json(state)
