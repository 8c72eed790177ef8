"""Parameters of catalog-extension calls: typed references, text with references, and arithmetic; and
the `{fact}` fields of text templates."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tau2.tasks import fill_text
from tau2.tasks._parameters import ParameterError, check_text_template, referenced, substitute

PARAMETERS = {"customer_id": "C2001", "allowance_gb": 15.0, "count": 2, "abroad": True}


@pytest.mark.parametrize(
    ("value", "filled"),
    [
        ("{customer_id}", "C2001"),
        ("{allowance_gb}", 15.0),
        ("{abroad}", True),
        ("line of {customer_id}", "line of C2001"),
        ("{{literal}} {customer_id}", "{literal} C2001"),
        ("{{literal}}", "{literal}"),
        ("=allowance_gb + 0.1", 15.1),
        ("= allowance_gb + 1.0 + 0.1", 16.1),
        ("=(allowance_gb - 1) * count", 28.0),
        ("=count * 3 - 1", 5),
        ("=-count", -2),
        ("plain", "plain"),
        (2.5, 2.5),
        ({"settings": ["{customer_id}", {"gb": "=count + 1"}]}, {"settings": ["C2001", {"gb": 3}]}),
    ],
)
def test_values_are_filled_from_the_parameters(value: object, filled: object) -> None:
    assert substitute(value, PARAMETERS) == filled
    assert type(substitute(value, PARAMETERS)) is type(filled)


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("{customer_id} and {line_id}", {"customer_id", "line_id"}),
        ("=allowance_gb + refuel_gb - 0.5", {"allowance_gb", "refuel_gb"}),
        ({"a": ["{x}"], "b": 1}, {"x"}),
        ("no reference", set()),
    ],
)
def test_referenced_names(value: object, names: set[str]) -> None:
    assert referenced(value) == names


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("=allowance_gb / 2", "only numbers, parameters, +, - and * are allowed"),
        ("=__import__('os')", "only numbers, parameters, +, - and * are allowed"),
        ("=2 ** 10", "only numbers, parameters, +, - and * are allowed"),
        ("=True + 1", "only numbers, parameters, +, - and * are allowed"),
        ("=allowance_gb +", "is not an arithmetic expression"),
        ("{customer.id}", "a reference is a parameter's name in braces, like {bill_id}"),
        ("{customer_id:>8}", "a reference is a parameter's name in braces, like {bill_id}"),
        ("{customer_id", "malformed reference"),
    ],
)
def test_malformed_references_are_refused_before_any_value_is_needed(value: str, message: str) -> None:
    with pytest.raises(ParameterError, match=re.escape(message)):
        referenced(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{line_id}", "unknown parameter 'line_id' (parameters: abroad, allowance_gb, count, customer_id)"),
        ("=customer_id + 1", "parameter 'customer_id' is not a number"),
        ("=abroad + 1", "parameter 'abroad' is not a number"),
        ("=count" + " * 99999" * 4, "a value beyond 1e+15 (mult)"),
        ("=10000000000000000 + 1", "1e+16 is beyond 1e+15"),
    ],
)
def test_unknown_and_non_numeric_parameters_are_refused(value: str, message: str) -> None:
    with pytest.raises(ParameterError, match=re.escape(message)):
        substitute(value, PARAMETERS)


@given(
    st.floats(0, 1000, allow_nan=False).map(lambda x: round(x, 2)),
    st.floats(0, 10, allow_nan=False).map(lambda x: round(x, 2)),
)
def test_a_sum_of_data_volumes_is_rounded_to_hundredths(allowance: float, extra: float) -> None:
    filled = substitute(f"=allowance + {extra!r} + 0.1", {"allowance": allowance})
    assert filled == round(allowance + extra + 0.1, 2)


@given(
    st.text(max_size=30), st.dictionaries(st.from_regex(r"[a-z_]{1,6}", fullmatch=True), st.text(max_size=8))
)
def test_a_template_inserts_only_the_facts_text(literal: str, facts: dict[str, str]) -> None:
    """Whatever the facts, filling a template adds exactly their text to the literal parts: no attribute,
    index, conversion or width can take effect."""
    escaped = literal.replace("{", "{{").replace("}", "}}")
    template = escaped + "".join(f"{{{name}}}" for name in facts)
    check_text_template(template)
    assert fill_text(template, facts) == literal + "".join(facts.values())


@pytest.mark.parametrize("template", ["{name.upper}", "{name[0]}", "{0}", "{name!s}", "{name:9}", "{ name}"])
def test_a_template_field_is_a_name_and_nothing_more(template: str) -> None:
    with pytest.raises(ParameterError, match="a text template's field is a fact's name in braces"):
        check_text_template(template)


def test_a_template_naming_an_unknown_fact_says_which() -> None:
    with pytest.raises(
        ParameterError, match=re.escape("text template names unknown fact 'age': 'You are {age}.'")
    ):
        fill_text("You are {age}.", {"name": "Ada"})
