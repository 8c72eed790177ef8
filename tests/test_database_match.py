"""The database check compares states as τ²-bench does, by the hash of their sorted-key JSON: `true`, `1` and
`1.0` are three values there although Python calls them equal, so a run that stores `1` where the reference
stores `true` fails the match in every domain."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from tau2 import Task, get_domain, load_task_file
from tau2.episode import replay_reference
from tau2.episode._basis import database_check
from tau2.world import same_state, state_digest, state_text

DOMAINS = ["airline", "retail", "telecom", "banking_knowledge"]


def _tasks(domain: str) -> list[Task]:
    suite = get_domain(domain).default_suite
    assert suite is not None
    return list(load_task_file(Path(suite)))


def _twin(value: object) -> object | None:
    """A value Python calls equal to `value` that JSON writes differently (None when there is none)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _trap(node: Any) -> bool:
    """Replace the first number or boolean below `node` by its twin, in place; True when one was found."""
    if isinstance(node, BaseModel):
        items: list[tuple[Any, Any]] = [(name, getattr(node, name)) for name in type(node).model_fields]
    elif isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return False
    for key, value in items:
        twin = _twin(value)
        if twin is not None:
            if isinstance(node, BaseModel):
                object.__setattr__(node, key, twin)  # records may be frozen: the trap goes around that
            else:
                node[key] = twin
            return True
        if _trap(value):
            return True
    return False


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@pytest.mark.parametrize("domain", DOMAINS)
def test_a_value_stored_as_another_json_type_fails_the_database_match(domain: str) -> None:
    task = next(task for task in _tasks(domain) if task.evaluation.solution)
    world = replay_reference(task, None)
    assert database_check(task, world, None, gating=True).passed  # the reference matches itself
    trapped = world.state.model_copy(deep=True)  # records are shared with other worlds: change a copy
    assert _trap(trapped)
    assert trapped == world.state  # Python sees no difference ...
    world.state = trapped
    assert database_check(task, world, None, gating=True).passed is False  # ... τ²-bench's hash does


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-3, 3, allow_nan=False)
    | st.sampled_from("ab"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xyz"), inner, max_size=3),
    max_leaves=8,
)


class _Holder(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: Any


@pytest.mark.parametrize("budget", [256, 0])  # walked side by side, or compared as texts at once
@given(first=JSON, second=JSON)
def test_states_match_exactly_when_their_sorted_json_texts_do(budget: int, first: Any, second: Any) -> None:
    one, other = _Holder(value=first), _Holder(value=second)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tau2.world._digest.WALK_BUDGET", budget)
        assert same_state(one, other) is (
            json.dumps({"value": first}, sort_keys=True) == json.dumps({"value": second}, sort_keys=True)
        )
    texts_equal = json.dumps({"value": first}, sort_keys=True) == json.dumps(
        {"value": second}, sort_keys=True
    )
    assert (state_digest(one) == state_digest(other)) is texts_equal
    assert same_state(one, other) is texts_equal
    assert state_digest(one) == hashlib.sha256(state_text(one).encode()).hexdigest()


@given(JSON)
def test_a_value_never_matches_its_python_equal_twin_of_another_json_type(value: Any) -> None:
    twin = _twin(value)
    if twin is not None:
        assert twin == value
        assert state_digest(_Holder(value=twin)) != state_digest(_Holder(value=value))
        assert not same_state(_Holder(value=twin), _Holder(value=value))


class _Outer(BaseModel):
    inner: _Holder
    items: dict[str, _Holder]
    rows: list[_Holder]


@given(JSON, JSON, st.dictionaries(st.sampled_from("pq"), JSON, max_size=2), st.lists(JSON, max_size=2))
def test_nested_states_match_exactly_when_their_digests_do(
    first: Any, second: Any, items: Any, rows: Any
) -> None:
    shared = _Holder(value=first)  # a record both worlds share is not looked into, and matches itself
    one = _Outer(
        inner=shared,
        items={k: _Holder(value=v) for k, v in items.items()},
        rows=[_Holder(value=r) for r in rows],
    )
    other = _Outer(inner=_Holder(value=second), items=dict(one.items), rows=[_Holder(value=r) for r in rows])
    assert same_state(one, other) is (state_digest(one) == state_digest(other))
    assert same_state(one, one.model_copy(update={"inner": shared}))
