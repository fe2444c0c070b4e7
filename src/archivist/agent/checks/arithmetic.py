"""Figures a claim computes in its own words, checked by code: ``3,909 + 3,673 = 7,582``.

A sum, difference, ratio or growth that an answer works out is not in any passage, so the
word checks would call its result unsupported. :func:`derived_figures` returns the results
of the equations a claim writes out (``a + b = c``, ``(a - b) / b × 100 = c%``, or a result
followed by its working in parentheses, ``c (a + b)``) whose arithmetic holds, within the
rounding of the result as written. Only the result is vouched for: the operands are checked
against the passages like any other number.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

__all__ = ["derived_figures"]

_NUM = r"[-−]?\$?\d[\d,]*(?:\.\d+)?%?"
_OP = r"[-−+×x*/÷]"
_EXPRESSION = rf"\(?\s*{_NUM}(?:\s*\)?\s*{_OP}\s*\(?\s*{_NUM}\s*\)?)+"
_EQUATION = re.compile(rf"({_EXPRESSION})\s*=\s*({_NUM})")
_SCALE = r"(?:\s*(?:thousand|million|billion|percent)\b)?"
_WORKING = re.compile(rf"({_NUM}){_SCALE}\s*\(\s*({_EXPRESSION})\s*\)")
_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
#: how far a written result may sit from its working, as a share of it (rounding, "≈")
RELATIVE_TOLERANCE = 0.005


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.left), _value(node.right))
    raise ValueError("not arithmetic")


def _evaluate(expression: str) -> float | None:
    """The value of written arithmetic (``3,909 + 3,673``, ``(a − b) ÷ b × 100``)."""
    text = expression.replace(",", "").replace("$", "").replace("%", "").replace("−", "-")
    text = re.sub(r"[×x]", "*", text).replace("÷", "/").strip()
    try:
        return _value(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def _holds(working: float, written: str) -> bool:
    """Whether ``written`` is ``working`` as rounded, or as a percent of a fraction."""
    number = float(re.sub(r"[$%,]", "", written).replace("−", "-"))
    decimals = len(written.strip("%").split(".")[1]) if "." in written else 0
    candidates = [working, working * 100] if written.endswith("%") else [working]
    for value in candidates:
        allowed = max(0.5 * 10 ** -decimals, abs(value) * RELATIVE_TOLERANCE)
        if abs(value - number) <= allowed + 1e-9:
            return True
    return False


def derived_figures(claim: str) -> list[str]:
    """The results of the equations ``claim`` writes out whose arithmetic holds."""
    found = [(m.group(1), m.group(2)) for m in _EQUATION.finditer(claim)]
    found += [(m.group(2), m.group(1)) for m in _WORKING.finditer(claim)]
    out = []
    for expression, result in found:
        working = _evaluate(expression)
        if working is not None and _holds(working, result):
            out.append(result.strip("$%-−"))
    return out
