"""The definitions a question gives of its metrics, and the one it asks for.

A definition is written ``DPO is defined as: 365 * ...``, ``free cash flow for FY2023,
defined as cash from operations less capex``, ``Debt-to-equity = total debt / equity`` or
``The payout ratio is dividends paid divided by net income`` (an ``is`` or ``=`` counts
only when what follows holds an operation). Of several, the one asked is the one whose name
the question uses (the longest such name), else the first; a name another definition
gives (``EBITDA`` in ``EBITDA margin is EBITDA / revenue``) is replaced in its formula by
that definition's own formula, so the formula names line items only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Definition", "asked_definition", "definitions_in", "without_definitions"]

_CLAUSE = re.compile(r"[^.;?!\n]+(?:\.\d[^.;?!\n]*)*[.;?!]?")
_NAME = r"(?P<name>[A-Za-z][\w &/'’()-]{0,80}?)"
_DEFINED = r"(?:defined|calculated|computed)\s+as\s*:?\s*"
_FORMULA = r"(?P<formula>.+?)\s*[.;?!]?\s*$"
_NAMED = re.compile(rf"{_NAME}\s+(?:is|are)\s+{_DEFINED}{_FORMULA}", re.I)
_AFTER_COMMA = re.compile(rf"{_NAME}(?P<cut>\s*,\s*(?:which\s+is\s+|is\s+)?{_DEFINED})"
                          rf"{_FORMULA}", re.I)
_EQUALS = re.compile(rf"^\s*{_NAME}\s*(?:=|\b(?:is|are|equals)\b)\s*:?\s*{_FORMULA}", re.I)
_OPERATION = re.compile(r"\s[-+*/÷×]\s|[*/÷×]|\b(?:divided by|minus|plus|times|less|"
                        r"multiplied by)\b", re.I)
_ASKING = re.compile(r"^\W*(?:what|which|how|who|why|when|where|is|are|was|were|do|does|did|"
                     r"can|could|calculate|compute|find|determine|give|tell)\b", re.I)
_OWNER = re.compile(r"^.*?['’]s\s+")
_NAME_END = re.compile(r"\s+(?:for|in|of|during|at|as of)\s+(?:the\s+)?(?:FY\s?'?\d+|fiscal|year|"
                       r"(?:19|20)\d{2}|quarter|period)\b.*$", re.I)
_QUALIFIER = re.compile(r"^(?:(?:the|a|an|its|unadjusted|reported|gaap|total)\s+)+", re.I)


@dataclass(frozen=True)
class Definition:
    """A metric's name and formula as written, and the span of the text that gives it."""

    name: str
    formula: str
    start: int
    end: int


def _name_of(raw: str) -> str:
    """The metric a definition's words name: no question words, owner or period."""
    name = _NAME_END.sub("", raw.strip())
    if _ASKING.match(name) or "'s " in name.replace("’", "'"):
        name = _OWNER.sub("", name.replace("’", "'"))
    return _ASKING.sub("", name).strip(" ,:")


def _in_clause(clause: str) -> tuple[str, str, int] | None:
    """``(name, formula, cut)``: a clause's definition and where its span starts."""
    found = _NAMED.search(clause)
    if found:
        return found.group("name"), found.group("formula"), found.start()
    found = _AFTER_COMMA.search(clause)
    if found:
        return _name_of(found.group("name")), found.group("formula"), found.start("cut")
    found = _EQUALS.match(clause)
    if found and not clause.rstrip().endswith("?") and not _ASKING.match(found.group("name")) \
            and _OPERATION.search(found.group("formula")):
        return found.group("name"), found.group("formula"), found.start()
    return None


def definitions_in(text: str) -> list[Definition]:
    """Every definition ``text`` gives, in order."""
    out = []
    for clause in _CLAUSE.finditer(text):
        found = _in_clause(clause.group(0))
        if found is None:
            continue
        name, formula, cut = found
        name = " ".join(name.split())
        if name and formula.strip():
            out.append(Definition(name, formula.strip(), clause.start() + cut, clause.end()))
    return out


def without_definitions(text: str) -> str:
    """``text`` with the definitions it gives taken out."""
    for found in reversed(definitions_in(text)):
        text = f"{text[:found.start]} {text[found.end:]}"
    return " ".join(text.split())


def _key(name: str) -> str:
    return _QUALIFIER.sub("", " ".join(re.findall(r"[\w&-]+", name.casefold())))


def _named_in(name: str, text: str) -> bool:
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text,
                                    re.I) is not None


def asked_definition(definitions: list[Definition], asked: str) -> tuple[str, str] | None:
    """``(name, formula)`` of the definition ``asked`` names, the others' names put in."""
    if not definitions:
        return None
    text = " ".join(re.findall(r"[\w&-]+", asked.casefold()))
    named = [d for d in definitions if _named_in(_key(d.name), text)]
    chosen = max(named, key=lambda d: len(_key(d.name))) if named else definitions[0]
    formula = chosen.formula
    for _ in range(2):  # a definition naming another that names a third
        for other in definitions:
            key = _key(other.name)
            if other is chosen or _named_in(key, other.formula):
                continue
            for name in dict.fromkeys((other.name, key)):
                if _named_in(name, formula):
                    put = f"({other.formula})".replace("\\", "\\\\")  # as written
                    formula = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", put, formula,
                                     flags=re.I)
                    break
    return chosen.name, formula
