"""Parameters in catalog-extension calls: `{name}` references and `=` arithmetic over a target's values;
and the `{fact}` fields of catalogs' text templates.

A string argument that is exactly `{name}` becomes the parameter's value with its type (a number stays a
number); `{name}` inside other text is replaced by the value's text (`{{` and `}}` are literal braces); a
string starting with `=` is an expression of `+`, `-`, `*`, parentheses, numbers and numeric parameters;
a fractional result is rounded to hundredths (so 15.0 + 0.1 gives 15.1, as a data volume is written), and
no intermediate value may exceed `MAX_MAGNITUDE`. Lists and tables are searched recursively.

A text template is text with `{fact}` fields and nothing else of Python's format language: no positional
fields, no attribute or index access, no conversion, no format spec. Filling one only inserts the facts'
text, so a template from an extension file can neither read an object's internals nor grow a text without
bound.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from string import Formatter
from typing import Annotated, Any, Final

from pydantic import AfterValidator

ParameterValue = str | int | float | bool
_ALLOWED_NODES = (
    ast.BinOp,
    ast.UnaryOp,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.USub,
    ast.UAdd,
)
_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
}


MAX_MAGNITUDE: Final = 10**15
"""The largest magnitude an expression's value may reach (any real amount, count or volume is far below):
a chain of multiplications must not build a number of millions of digits."""


class ParameterError(ValueError):
    """A reference or expression that is malformed or names a parameter the target does not offer."""


def check_text_template(text: str) -> str:
    """`text` when it is a text template (literal text and `{fact}` fields, `{{` and `}}` for braces),
    else a `ParameterError` saying what is not allowed."""
    _fields(text, "field")
    return text


TextTemplate = Annotated[str, AfterValidator(check_text_template)]
"""A catalog's text template, checked when the catalog or extension file loads."""


def fill_text(template: str, facts: Mapping[str, object]) -> str:
    """`template` with each `{fact}` replaced by the fact's text; an unknown fact is a `ParameterError`."""
    parts = []
    for literal, name, _, _ in _parsed(template, "field"):
        parts.append(literal)
        if name is not None:
            if name not in facts:
                raise ParameterError(f"text template names unknown fact {name!r}: {template!r}")
            parts.append(str(facts[name]))
    return "".join(parts)


def referenced(value: Any) -> set[str]:
    """The parameter names a JSON-like value refers to; a malformed reference or expression raises."""
    if isinstance(value, str):
        if value.startswith("="):
            return _names(_parse(value[1:]))
        return {field for field, _ in _fields(value)}
    if isinstance(value, list):
        return set().union(*(referenced(item) for item in value))
    if isinstance(value, dict):
        return set().union(*(referenced(item) for item in value.values()))
    return set()


def substitute(value: Any, parameters: Mapping[str, ParameterValue]) -> Any:
    """`value` with every reference and expression replaced by what the parameters give."""
    if isinstance(value, str):
        if value.startswith("="):
            return _evaluate(_parse(value[1:]), parameters)
        fields = _fields(value)
        if len(fields) == 1 and value == "{" + fields[0][0] + "}":
            return _lookup(fields[0][0], parameters)
        if not fields:
            return value.replace("{{", "{").replace("}}", "}")
        return fill_text(value, {name: _lookup(name, parameters) for name, _ in fields})
    if isinstance(value, list):
        return [substitute(item, parameters) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, parameters) for key, item in value.items()}
    return value


_FORMS: Final = {
    "reference": "a reference is a parameter's name in braces, like {bill_id}",
    "field": "a text template's field is a fact's name in braces, like {customer_name}",
}
"""What a field of each kind of text may be, for messages."""


def _fields(text: str, what: str = "reference") -> list[tuple[str, str]]:
    """The `{name}` fields of a text (`what`: parameter references, or a template's fact fields), each with
    the literal text before it; anything but a name in braces (a position, attribute or index access, a
    conversion, a format spec) is a `ParameterError`."""
    fields = []
    for literal, name, spec, conversion in _parsed(text, what):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ParameterError(f"{text!r}: {_FORMS[what]}")
        fields.append((name, literal))
    return fields


def _parsed(text: str, what: str) -> list[tuple[str, str | None, str | None, str | None]]:
    """The parts of a text as `string.Formatter` reads them (literal text, field name, spec, conversion);
    unbalanced braces are a `ParameterError` calling a field `what`."""
    try:
        return list(Formatter().parse(text))
    except ValueError as error:
        raise ParameterError(f"malformed {what} in {text!r}: {error}") from None


def _parse(expression: str) -> ast.expr:
    """The syntax tree of an arithmetic expression, refusing anything but numbers, names and + - *."""
    try:
        tree = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError:
        raise ParameterError(f"={expression} is not an arithmetic expression") from None
    for node in ast.walk(tree):
        number = not isinstance(node, ast.Constant) or type(node.value) in (int, float)
        if not isinstance(node, _ALLOWED_NODES) or not number:
            raise ParameterError(f"={expression}: only numbers, parameters, +, - and * are allowed")
    return tree


def _names(tree: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _evaluate(tree: ast.expr, parameters: Mapping[str, ParameterValue]) -> int | float:
    """The value of a parsed expression; floats are rounded to hundredths."""
    value = _value(tree, parameters)
    return round(value, 2) if isinstance(value, float) else value


def _value(node: ast.expr, parameters: Mapping[str, ParameterValue]) -> int | float:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, (int, float)), "_parse admits numbers only"
        if abs(node.value) > MAX_MAGNITUDE:
            raise ParameterError(f"{node.value:.3g} is beyond {MAX_MAGNITUDE:.0e}")
        return node.value
    if isinstance(node, ast.Name):
        value = _lookup(node.id, parameters)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"parameter {node.id!r} is not a number ({value!r})")
        return value
    if isinstance(node, ast.UnaryOp):
        operand = _value(node.operand, parameters)
        return -operand if isinstance(node.op, ast.USub) else operand
    assert isinstance(node, ast.BinOp), "_parse admits no other node"
    left, right = _value(node.left, parameters), _value(node.right, parameters)
    result: int | float = _OPERATORS[type(node.op)](left, right)
    if abs(result) > MAX_MAGNITUDE:
        raise ParameterError(f"a value beyond {MAX_MAGNITUDE:.0e} ({type(node.op).__name__.lower()})")
    return result


def _lookup(name: str, parameters: Mapping[str, ParameterValue]) -> ParameterValue:
    if name not in parameters:
        known = ", ".join(sorted(parameters)) or "none"
        raise ParameterError(f"unknown parameter {name!r} (parameters: {known})")
    return parameters[name]
