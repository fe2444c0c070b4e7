"""Formulas over line items, written as a question writes them, parsed and evaluated safely.

``365 * (average accounts payable) / (COGS + change in inventory)`` is read as arithmetic
over terms; each term is a line item (see :mod:`archivist.filings.concepts`) with a
modifier: the current period's value, the ``average`` of it and the prior period's, the
``change`` from the prior period, or the ``prior`` period's value. Operations may be written
in words (``plus``, ``minus``, ``divided by``, ``times``), and a term may name the statement
it is read from (``depreciation from the cash flow statement``). Only numbers, the four
operations and parentheses are allowed: the expression is checked node by node before it
is evaluated, never passed to ``eval`` as text from the question.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from archivist.filings.concepts import CONCEPTS, Concept, concept_named, label_concept
from archivist.filings.definitions import (
    asked_definition,
    definitions_in,
    without_definitions,
)
from archivist.filings.item_qualifiers import STATEMENT_NAMED
from archivist.types import ArchivistError

__all__ = ["Formula", "FormulaError", "Term", "definition_in", "parse_formula"]

MODIFIERS = ("current", "average", "change", "prior")
_TOKEN = re.compile(r"\s*(?:(?P<number>\d[\d,]*(?:\.\d+)?)\s*%?|(?P<op>[-+*/()])|"
                    r"(?P<phrase>[A-Za-z&'](?:[A-Za-z&'. ]|-(?=[A-Za-z])|,(?=\s*[A-Za-z]))*))")
_TIMES = re.compile(r"(?<=[\d)\s])\s*[×x]\s*(?=[\d(\sA-Za-z])")
_AVERAGE = re.compile(r"^(?:the\s+)?(?:average|avg\.?|mean)(?:\s+of)?\s+(?:the\s+)?", re.I)
_TWO_YEARS = re.compile(r"\s+(?:averaged?|on average)\b.*$|\s+(?:between|over|across)\s+"
                        r"(?:the\s+)?(?:two|2|last two)\s+(?:fiscal\s+)?years\b.*$", re.I)
_CHANGE = re.compile(r"^(?:the\s+)?(?:change|increase|decrease|difference)(?:\s+in)?\s+"
                     r"(?:the\s+)?", re.I)
_PRIOR = re.compile(r"^(?:the\s+)?(?:prior|previous|beginning|last)(?:\s+year'?s?)?\s+|"
                    r"\s+(?:of|in|for)\s+the\s+(?:prior|previous)\s+year$", re.I)
_CURRENT = re.compile(r"\s+(?:at|for|of|in)\s+(?:the\s+)?(?:year[- ]end|end of the year|"
                      r"current year|year|period)$|^(?:ending|current year'?s?)\s+", re.I)
_SPAN = re.compile(r"\b(?:between|from)\s+(?:FY\s?|fiscal\s+(?:year\s+)?)?'?\d{2,4}\s+(?:and|to)\s+"
                   r"(?:FY\s?|fiscal\s+(?:year\s+)?)?'?\d{2,4}\b", re.I)
_YEAR_NAMED = re.compile(r"\b(?:(?:in|for|of|at)\s+)?(?:FY\s?|fiscal\s+(?:year\s+)?)'?\d{2,4}\b"
                         r"|\b(?:in|for|of|at)\s+(?:19|20)\d{2}\b", re.I)
_WORD_OPERATIONS = ((re.compile(r"\s+divided\s+by\s+", re.I), " / "),
                    (re.compile(r"\s+(?:multiplied\s+by|times)\s+", re.I), " * "),
                    (re.compile(r"\s+minus\s+|(?<!,)\s+less\s+(?!than\b)", re.I), " - "),
                    (re.compile(r"\s+plus\s+", re.I), " + "))
_EMPTY_PARENS = re.compile(r"\(\s*\)")
_DEBT = re.compile(r"(?:the\s+)?(?:total\s+)?(?:debt|borrowings)(?:\s+outstanding)?", re.I)
_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv}


class FormulaError(ArchivistError):
    """A formula that cannot be read or computed; the message says which part and why."""


@dataclass(frozen=True)
class Term:
    """One line item in a formula, with its modifier and the words it was written as."""

    concept: Concept
    modifier: str
    text: str


@dataclass
class Formula:
    """A parsed formula: ``expression`` names its terms ``t0``, ``t1`` ...; ``text`` is as read."""

    text: str
    expression: str
    terms: list[Term]

    def evaluate(self, values: Mapping[str, float]) -> float:
        """The formula's value given each term's value by name (``t0`` ...)."""
        tree = ast.parse(self.expression, mode="eval")
        try:
            return _value(tree.body, values)
        except ZeroDivisionError:
            raise FormulaError(f"'{self.text}' divides by zero with these figures") from None

    def written(self, shown: Mapping[str, str]) -> str:
        """The expression with each term replaced by ``shown[name]`` (its figures)."""
        return re.sub(r"\bt\d+\b", lambda m: shown[m.group(0)], self.expression) \
            .replace("*", "×").replace("/", "÷")


def _value(node: ast.expr, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left, values), _value(node.right, values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _value(node.operand, values)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in values:
        return float(values[node.id])
    raise FormulaError("only numbers, line items, + - * / and parentheses are allowed")


def _term(phrase: str) -> list[Term]:
    """The line item a phrase names with its modifier; total debt is two line items.

    A phrase no concept is known by is read as a printed label (:func:`label_concept`).
    """
    text = " ".join(phrase.split()).strip(" .,")
    rest = _TWO_YEARS.sub("", text).strip()
    modifier = "average" if rest != text else "current"
    for pattern, name in ((_AVERAGE, "average"), (_CHANGE, "change"), (_PRIOR, "prior")):
        stripped = pattern.sub("", rest).strip()
        if stripped != rest:
            rest, modifier = stripped, name
            break
    rest = _CURRENT.sub("", rest).strip(" ,")
    if _DEBT.fullmatch(rest):
        return [Term(CONCEPTS[name], modifier, text) for name in ("short_term_debt",
                                                                   "long_term_debt")]
    concept = concept_named(rest) or label_concept(rest)
    if concept is None:
        raise FormulaError(f"cannot map '{text}' to a line item of the statements")
    return [Term(concept, modifier, text)]


def parse_formula(text: str) -> Formula:
    """A formula as written (``365 x average accounts payable / COGS``), parsed.

    Raises :class:`FormulaError` naming the part that is no number, operation or known
    line item.
    """
    source = STATEMENT_NAMED.sub("", text.replace("’", "'"))
    for pattern, operation in _WORD_OPERATIONS:
        source = pattern.sub(operation, source)
    source = _TIMES.sub(" * ", source.replace("÷", "/").replace("−", "-").replace("–", "-"))
    source = _YEAR_NAMED.sub(" ", _SPAN.sub(" between two years ", source))
    source = _EMPTY_PARENS.sub(" ", source)
    parts: list[str] = []
    terms: list[Term] = []
    position = 0
    source = source.strip().rstrip(".")
    while position < len(source):
        match = _TOKEN.match(source, position)
        if not match or match.end() == position:
            raise FormulaError(f"cannot read '{source[position:].strip()}' in '{text}'")
        position = match.end()
        if match.group("number"):
            parts.append(match.group("number").replace(",", ""))
        elif match.group("op"):
            parts.append(match.group("op"))
        elif match.group("phrase").strip(" ,"):
            found = _term(match.group("phrase"))
            names = [f"t{len(terms) + i}" for i in range(len(found))]
            terms.extend(found)
            parts.append(names[0] if len(names) == 1 else f"({' + '.join(names)})")
    expression = " ".join(parts).replace("( ", "(").replace(" )", ")")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise FormulaError(f"'{text}' is not a complete formula") from None
    _value(tree.body, {f"t{i}": 1.0 for i in range(len(terms))})  # only allowed nodes
    if not terms:
        raise FormulaError(f"'{text}' names no line item")
    return Formula(text.strip(), expression, terms)


def definition_in(question: str) -> tuple[str, str] | None:
    """``(name, formula)`` of the definition a question gives of what it asks, or ``None``.

    See :mod:`archivist.filings.definitions` for the shapes read and the one chosen.
    """
    return asked_definition(definitions_in(question), without_definitions(question))
