"""Hypothesis-driven checks of a domain pack: random sequences of tool and env-function calls, with
arguments drawn from each function's schema (often invalid on purpose), must never raise, break an
invariant, leave a trace when they fail, or behave differently when replayed on a fresh world."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tau2.errors import ErrorCode
from tau2.world._results import ToolResult
from tau2.world._rules import WorldRules
from tau2.world._tools import Side, Tool, ToolKind
from tau2.world._world import World

if TYPE_CHECKING:
    from hypothesis import strategies as st

Operation = tuple[bool, Side, str, dict[str, Any]]
"""(is an actor tool call, side, function name, arguments)."""


class _Problem(Exception):
    """A property violation found while running one generated sequence."""


def property_problems(domain: WorldRules[Any], data_dir: Path | None, max_examples: int) -> list[str]:
    """Run the generated-sequence properties on `domain`; the first counterexample is reported."""
    from hypothesis import HealthCheck, Verbosity, given, settings
    from hypothesis import strategies as st

    problems = _loading_problems(domain, data_dir)
    if problems:
        return problems
    operations = _operations(domain, _state_strings(World.create(domain, data_dir).state))
    if operations is None:
        return []
    profile = settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,  # the counterexample is returned as a problem line, not printed
    )

    @profile
    @given(st.lists(operations, max_size=12))
    def sequence_holds(sequence: list[Operation]) -> None:
        _check_sequence(domain, data_dir, sequence)

    try:
        sequence_holds()
    except _Problem as problem:
        return [str(problem)]
    return []


def _loading_problems(domain: WorldRules[Any], data_dir: Path | None) -> list[str]:
    try:
        first, second = domain.load_state(data_dir), domain.load_state(data_dir)
        fresh = [World.create(domain, data_dir).fingerprint() for _ in range(2)]
    except Exception as error:
        return [f"loading the state failed: {type(error).__name__}: {error}"]
    if first.model_dump_json() != second.model_dump_json() or fresh[0] != fresh[1]:
        return ["loading the domain twice gives different states"]
    return []


def _check_sequence(domain: WorldRules[Any], data_dir: Path | None, sequence: list[Operation]) -> None:
    world = World.create(domain, data_dir)
    results = []
    for operation in sequence:
        before = world.fingerprint()
        result = _perform(world, operation)
        results.append(result)
        label = _label(operation)
        if result.error is not None and result.error.code is ErrorCode.INTERNAL_ERROR:
            raise _Problem(f"{label} raised: {result.error.message}")
        if not result.ok and world.fingerprint() != before:
            raise _Problem(f"failing {label} changed the state")
        if _is_read(domain, operation) and world.fingerprint() != before:
            raise _Problem(f"read tool {label} changed the state")
        violations = world.invariant_violations()
        if violations:
            raise _Problem(f"{label} broke an invariant: {violations[0]}")
    replay = World.create(domain, data_dir)
    replayed = [_perform(replay, operation) for operation in sequence]
    if replayed != results or replay.fingerprint() != world.fingerprint():
        calls = ", ".join(_label(operation) for operation in sequence)
        raise _Problem(f"replaying [{calls}] on a fresh world gave different results")


def _perform(world: World, operation: Operation) -> ToolResult:
    as_tool, side, name, arguments = operation
    return world.call(side, name, arguments) if as_tool else world.run_env_function(side, name, arguments)


def _is_read(domain: WorldRules[Any], operation: Operation) -> bool:
    as_tool, side, name, _ = operation
    function = domain.tools.tool(name) if as_tool else domain.tools.env_function(side, name)
    return function is not None and function.kind is ToolKind.READ


def _label(operation: Operation) -> str:
    _, side, name, arguments = operation
    return f"{side.value} {name}({to_jsonable_python(arguments, fallback=repr)})"


def _operations(domain: WorldRules[Any], strings: list[str]) -> st.SearchStrategy[Operation] | None:
    """Calls of every tool (as actors make them) and env function (as tasks do), with schema arguments."""
    from hypothesis import strategies as st

    choices = [
        _calls(function, as_tool, strings)
        for side in Side
        for function in domain.tools.env_functions(side)
        for as_tool in ((False, True) if function.is_tool else (False,))
    ]
    return st.one_of(choices) if choices else None


def _calls(function: Tool, as_tool: bool, strings: list[str]) -> st.SearchStrategy[Operation]:
    from hypothesis import strategies as st

    schema = function.json_schema()["function"]["parameters"]
    plausible = _from_schema(schema, strings)
    junk = plausible.flatmap(
        lambda arguments: st.sampled_from(
            [{**arguments, "bogus": 1}, {key: 7 for key in arguments}, dict(list(arguments.items())[1:])]
        )
    )
    return st.tuples(
        st.just(as_tool),
        st.just(function.side),
        st.just(function.name),
        st.one_of(plausible, plausible, plausible, junk),  # mostly well-formed, sometimes broken
    )


def _from_schema(schema: dict[str, Any], strings: list[str]) -> st.SearchStrategy[Any]:
    """Values for a JSON schema; strings come from the state's own ids and names so calls hit records."""
    from hypothesis import strategies as st

    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    variants = schema.get("anyOf") or schema.get("oneOf")
    if variants:
        return st.one_of([_from_schema(variant, strings) for variant in variants])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", properties))
        return st.fixed_dictionaries(
            {name: _from_schema(sub, strings) for name, sub in properties.items() if name in required},
            optional={
                name: _from_schema(sub, strings) for name, sub in properties.items() if name not in required
            },
        )
    if kind == "array":
        return st.lists(_from_schema(schema.get("items", {}), strings), max_size=3)
    simple: dict[str, st.SearchStrategy[Any]] = {
        "string": st.one_of(st.sampled_from(strings), st.text(max_size=8)),
        "integer": st.one_of(st.sampled_from([0, 1, -1]), st.integers(-3, 1000)),
        "number": st.one_of(st.floats(-10.0, 1000.0), st.sampled_from([0.0, -0.0, -1.0, 0.5])),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    if isinstance(kind, str) and kind in simple:
        return simple[kind]
    return st.one_of(st.none(), st.booleans(), st.integers(-3, 9), st.sampled_from(strings))


def _state_strings(state: BaseModel) -> list[str]:
    """Every short string in the state (ids, names, codes), sorted so generation is reproducible."""
    found = sorted({text for text in _leaves(state.model_dump(mode="json")) if 0 < len(text) <= 40})
    return found[:2000] or ["x"]


def _leaves(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from _leaves(value)
    elif isinstance(node, list):
        for item in node:
            yield from _leaves(item)
