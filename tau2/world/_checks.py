"""A conformance checker for domain packs, shipped with the library so that authors of new domains can
check their pack the way the built-in ones are checked (in the spirit of Gymnasium's environment checker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tau2.world._property_checks import property_problems
from tau2.world._rules import WorldRules
from tau2.world._tools import Side, Tool, ToolKind
from tau2.world._world import World


def check_domain(
    domain: WorldRules[Any], data_dir: Path | None = None, *, max_examples: int = 30
) -> list[str]:
    """Problems that would confuse actors or the engine, one line each; empty when the pack is sound.

    Besides static checks, `max_examples` generated call sequences exercise every tool and env function.
    """
    problems = [*_tool_problems(domain), *_policy_problems(domain)]
    try:
        world = World.create(domain, data_dir)
    except Exception as error:  # the check reports, it never raises
        return [*problems, f"loading the state failed: {type(error).__name__}: {error}"]
    problems.extend(_state_problems(world))
    if max_examples > 0:
        problems.extend(property_problems(domain, data_dir, max_examples))
    return problems


def _tool_problems(domain: WorldRules[Any]) -> list[str]:
    problems: list[str] = []
    for side in Side:
        if side is Side.USER and domain.single_control:
            continue  # the customer only talks
        if not domain.tools.tools(side):
            problems.append(f"the {side.value} side has no tools")
    for tool in domain.tools.tools():
        problems.extend(_schema_problems(tool))
    transfer = domain.transfer_tool
    if transfer is not None:
        transfer_tool = domain.tools.tool(transfer)
        if transfer_tool is None or transfer_tool.side is not Side.AGENT:
            problems.append(f"transfer tool {transfer!r} is not an agent tool")
    return problems


def _schema_problems(tool: Tool) -> list[str]:
    """LLM actors only see a tool's schema: every tool and argument needs a description."""
    problems = []
    if not tool.description:
        problems.append(f"tool {tool.name!r} has no description (its docstring is what actors read)")
    properties = tool.json_schema()["function"]["parameters"].get("properties", {})
    for name, schema in properties.items():
        if not schema.get("description"):
            problems.append(f"tool {tool.name!r}: argument {name!r} is not documented under Args:")
    return problems


def _policy_problems(domain: WorldRules[Any]) -> list[str]:
    if domain.policy is None:
        return ["the domain has no agent policy"]
    problems = []
    for solo in (False, True):
        try:
            text = domain.policy(solo, "manual")
        except Exception as error:
            problems.append(f"policy(solo={solo}) failed: {type(error).__name__}: {error}")
            continue
        if not text.strip():
            problems.append(f"policy(solo={solo}) is empty")
    return problems


def _state_problems(world: World) -> list[str]:
    problems = [
        f"a fresh state breaks an invariant: {violation}" for violation in world.invariant_violations()
    ]
    snapshot = world.snapshot()
    fingerprint = world.fingerprint()
    world.restore(snapshot)
    if world.fingerprint() != fingerprint:
        problems.append("snapshot/restore does not round-trip: the restored state differs")
    for tool in world.tools.tools():
        if tool.kind is not ToolKind.READ or tool.arguments_model.model_fields:
            continue  # only argument-free read tools can be called blindly
        world.call(tool.side, tool.name, {})
        if world.fingerprint() != fingerprint:
            problems.append(f"read tool {tool.name!r} changed the state")
            world.restore(snapshot)
    return problems
