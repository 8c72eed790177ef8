"""Parameters in catalog-extension calls: `{name}` references and `=` arithmetic over a target's values.

A string argument that is exactly `{name}` becomes the parameter's value with its type (a number stays a
number); `{name}` inside other text is replaced by the value's text (`{{` and `}}` are literal braces); a
string starting with `=` is an expression of `+`, `-`, `*`, parentheses, numbers and numeric parameters;
a fractional result is rounded to hundredths (so 15.0 + 0.1 gives 15.1, as a data volume is written).
Lists and tables are searched recursively.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from string import Formatter
from typing import Any

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


class ParameterError(ValueError):
    """A reference or expression that is malformed or names a parameter the target does not offer."""


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
        return value.format_map({name: _lookup(name, parameters) for name, _ in fields})
    if isinstance(value, list):
        return [substitute(item, parameters) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, parameters) for key, item in value.items()}
    return value


def _fields(text: str) -> list[tuple[str, str]]:
    """The `{name}` fields of a text, each with the literal text before it."""
    try:
        parts = list(Formatter().parse(text))
    except ValueError as error:
        raise ParameterError(f"malformed reference in {text!r}: {error}") from None
    fields = []
    for literal, name, spec, conversion in parts:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ParameterError(f"{text!r}: a reference is a parameter's name in braces, like {{bill_id}}")
        fields.append((name, literal))
    return fields


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
    return result


def _lookup(name: str, parameters: Mapping[str, ParameterValue]) -> ParameterValue:
    if name not in parameters:
        known = ", ".join(sorted(parameters)) or "none"
        raise ParameterError(f"unknown parameter {name!r} (parameters: {known})")
    return parameters[name]
