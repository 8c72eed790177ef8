"""Shared helpers of the telecom tests: data locations and one-line ways to run operations on a world."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tau2.domains.telecom import DATA_DIR, DOMAIN, TelecomState
from tau2.errors import ErrorCode
from tau2.world import World
from tau2.world._results import ToolResult
from tau2.world._tools import Side

REFERENCE_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "tau2-telecom"
"""τ²-bench's telecom data, kept beside the checkout (absent in some environments)."""
OWN_DATA_DIR = DATA_DIR

JOHN = {"name": "John Smith", "phone_number": "555-123-2002"}
C1001_L1002 = {"customer_id": "C1001", "line_id": "L1002"}


def run(world: World, side: str, name: str, /, **arguments: Any) -> ToolResult:
    """Run an actor tool through `World.call`, any other function through `run_env_function`."""
    tool = world.tools.tool(name)
    if tool is not None and tool.side is Side(side):
        return world.call(side, name, arguments)
    return world.run_env_function(side, name, arguments)


def ok(world: World, side: str, name: str, /, **arguments: Any) -> Any:
    """Run an operation that must succeed; its content."""
    result = run(world, side, name, **arguments)
    assert result.ok, f"{name}({arguments}) failed: {result.error}"
    return result.content


def fails(world: World, side: str, name: str, code: ErrorCode, /, **arguments: Any) -> str:
    """Run an operation that must fail with `code` and change nothing; its error message."""
    before = world.fingerprint()
    result = run(world, side, name, **arguments)
    assert not result.ok and result.error is not None, f"{name}({arguments}) unexpectedly succeeded"
    assert result.error.code is code, result.error
    assert world.fingerprint() == before, f"failing {name} changed the state"
    return result.error.message


def state(world: World) -> TelecomState:
    """The world's state with its concrete type."""
    assert isinstance(world.state, TelecomState)
    return world.state


def make_world(data_dir: Path, bind: bool = True) -> World:
    """A fresh world on `data_dir`, bound to John Smith's number unless `bind` is false."""
    world = World.create(DOMAIN, data_dir)
    if bind:
        ok(world, "user", "set_user_info", **JOHN)
    return world
