"""The domain-agnostic catalog types refuse inconsistent catalogs; the workflow graph refuses cycles."""

from __future__ import annotations

import pytest
from generator_mock import GRID_FAILURE, INTENT, POWER_CUT, UNPLUGGED, mock_catalog
from pydantic import ValidationError

from tau2.generator.workflow import Workflow
from tau2.tasks import Catalog, EnvCall, Precedence, Step, Subtask
from tau2.world import Side


def test_a_fixable_subtask_needs_a_solution_and_an_unfixable_one_has_none() -> None:
    with pytest.raises(ValidationError, match="needs a solution"):
        Subtask(name="x", group="plug", description="x", init=(EnvCall(side=Side.USER, name="unplug"),))
    with pytest.raises(ValidationError, match="must not have a solution"):
        GRID_FAILURE.model_validate(
            {**GRID_FAILURE.model_dump(), "solution": [{"side": "user", "name": "plug_in"}]}
        )


def test_a_subtask_needs_init_calls() -> None:
    with pytest.raises(ValidationError, match="no init calls"):
        Subtask(name="x", group="plug", description="x", init=(), unfixable=True)


def test_references_must_resolve() -> None:
    catalog = mock_catalog()
    with pytest.raises(ValidationError, match="unknown group 'lamp'"):
        catalog.model_validate(
            {**catalog.model_dump(), "subtasks": [{**UNPLUGGED.model_dump(), "group": "lamp"}]}
        )
    with pytest.raises(ValidationError, match="unknown stage 'wiring'"):
        stray = UNPLUGGED.model_copy(
            update={"solution": (Step(side=Side.USER, name="plug_in", stage="wiring"),)}
        )
        Catalog.model_validate({**catalog.model_dump(), "subtasks": [stray.model_dump()]})
    with pytest.raises(ValidationError, match="subtask 'power_cut' is declared twice"):
        Catalog.model_validate({**catalog.model_dump(), "subtasks": [POWER_CUT.model_dump()] * 2})
    with pytest.raises(ValidationError, match="fix_order: 'attic' is not declared"):
        Catalog.model_validate(
            {**catalog.model_dump(), "fix_order": [{"before": "attic", "after": "plug", "reason": "r"}]}
        )


def test_prerequisites_must_be_groups_of_the_intent() -> None:
    with pytest.raises(ValidationError, match="not among its groups"):
        INTENT.model_validate({**INTENT.model_dump(), "prerequisites": ["kitchen"]})


def test_a_cycle_of_precedences_is_named() -> None:
    cyclic = mock_catalog().model_copy(
        update={
            "fix_order": (
                Precedence(before="plug", after="switch", reason="a"),
                Precedence(before="switch", after="plug", reason="b"),
            )
        }
    )
    with pytest.raises(ValueError, match="fix_order: the precedences form a cycle through"):
        Workflow(cyclic)


def test_lookups_by_name() -> None:
    catalog = mock_catalog()
    assert catalog.subtask("power_cut") is POWER_CUT
    assert [subtask.name for subtask in catalog.variants("power")] == ["power_cut", "grid_failure"]
    assert catalog.intent("dark_lamp").prerequisites == ("plug",)
    with pytest.raises(KeyError):
        catalog.subtask("nope")
