"""The `calculate` tool's evaluator: plain arithmetic on numbers, parsed rather than `eval`-ed."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from tau2 import ErrorCode, ToolError

_ALLOWED = frozenset("0123456789+-*/(). ")
_MAX_EXPONENT = 10_000
"""Powers beyond this would stall the world; τ-bench has no bound, no realistic call comes near it."""

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def calculate(expression: str) -> str:
    """The value of `expression` rounded to two decimals, as Python prints a float (`64.29`, `1024.0`)."""
    if any(char not in _ALLOWED for char in expression):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Invalid characters in expression")
    try:
        tree = ast.parse(expression, filename="<string>", mode="eval")
    except SyntaxError as error:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None
    try:
        value = _evaluate(tree.body)
    except ZeroDivisionError as error:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None
    except OverflowError as error:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(error)) from None
    if isinstance(value, complex):  # a fractional power of a negative number
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "can't convert complex to float")
    return str(round(float(value), 2))


def _evaluate(node: ast.expr) -> float:
    """Numbers, unary signs and the six binary operators the allowed characters can spell."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        operand = _evaluate(node.operand)
        return operand if isinstance(node.op, ast.UAdd) else -operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "exponent too large")
        return _BINARY[type(node.op)](left, right)
    raise ToolError(ErrorCode.INVALID_ARGUMENT, "invalid syntax (<string>, line 1)")
