"""A question told apart from the instructions that come with it.

A user's message may hold, beside what it asks, definitions and formulas ("DPO is defined
as: 365 * ..."), the unit, rounding and format wanted ("Round to two decimal places.",
"Answer in USD millions."), and a point of view ("Assume you are an equity analyst.").
Only the question is searched and split into sub-questions; the rest goes to the writing
and computing steps. A sentence is an instruction when it defines something ("X is A divided
by B" too), asks for a format (also "if X is not useful, state that and explain why"), or
sets a standpoint: a point of view, or the statements and details to rely on ("Calculate
what was asked by utilizing the line items shown in the cash flow statement."). A question
opening with where to look ("Using only the P&L statement, what is ...?") gives that
clause to the standpoint and keeps the rest. A message made only of instructions is a
question as a whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Sentence ends: after ? or !, or after a full stop before a capital (not after an
#: abbreviation such as "U.S." or "Inc.").
_END = re.compile(r"(?<=[?!])\s+|(?<=\.)\s+(?=[A-Z(\"“])")
_ABBREVIATION = re.compile(
    r"(?:\b[A-Z]\.|\b(?:Inc|Corp|Co|Ltd|No|vs|approx|e\.g|i\.e|St|Mr|Mrs|Dr)\.)$")
_DEFINITION = re.compile(
    r"\b(?:is|are)\s+(?:defined|calculated|computed|measured|given)\s+(?:as|by)\b"
    r"|\bdefined\s+as\b|^\s*[\w()/&' -]{1,60}\s*=\s*[\w(]"
    r"|^\s*[\w()/&'’ -]{1,60}?\s+(?:is|are|equals)\s+[^?]*?(?:\s[-+*/÷×]\s|\bdivided\s+by\b"
    r"|\bminus\b|\bplus\b)",
    re.IGNORECASE)
_FORMAT = re.compile(
    r"^\W*(?:please\s+)?(?:round|express|answer|respond|reply|report|present|format|show"
    r"|give\s+(?:your|the)\s+answer|provide\s+(?:your|the)\s+answer|use\s+(?:two|one|\d)"
    r"|keep\s+(?:your|the)\s+answer)\b"
    r"|^\W*if\b.*\b(?:state|say|note|explain)\s+(?:that|so|why)\b"
    r"|\b(?:decimal\s+places?|significant\s+(?:figures|digits)|nearest\s+(?:whole|hundred"
    r"|thousand|million|tenth|cent))\b",
    re.IGNORECASE)
#: What a filing's reader is told to rely on: its statements, details, line items.
_SOURCES = (r"\b(?:statements?|balance\s+sheets?|P&L|details|information|line\s+items|"
            r"filings?|10-[KQ])\b")
_STANDPOINT = re.compile(
    r"^\W*(?:please\s+)?(?:assume|imagine|pretend|suppose|act\s+as|you\s+are|as\s+an?\b"
    r"|base\s+your|from\s+the\s+(?:standpoint|perspective|point\s+of\s+view))\b"
    r"|\b(?:standpoint|perspective|point\s+of\s+view)\s+of\b"
    r"|^\W*(?:please\s+)?(?:calculate|compute|address|answer|respond\s+to|give\s+a\s+response\s+to)"
    r"\s+(?:what\s+was\s+asked|the\s+(?:following\s+)?question)\b"
    rf"|^\W*(?:please\s+)?(?:utili[sz]e|use|rely\s+on|refer\s+to)\b.*{_SOURCES}",
    re.IGNORECASE)
#: A question's opening clause saying where to look, up to its comma.
_WHERE_TO_LOOK = re.compile(
    rf"^\W*(?:(?:by\s+)?using|according\s+to|based\s+on|relying\s+on)\b[^,?]*?{_SOURCES}"
    r"[^,?]*,\s*(?=\w)", re.IGNORECASE)
_ASKS = re.compile(r"\?\s*$|^\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was"
                   r"|were|do|does|did|can|could|should|will|would|has|have|had|calculate"
                   r"|compute|find|determine|list|name|identify|explain|describe|summari[sz]e"
                   r"|compare|tell)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Split:
    """A message's question and the instructions that came with it."""

    question: str
    definitions: list[str] = field(default_factory=list)
    output_format: list[str] = field(default_factory=list)
    standpoint: list[str] = field(default_factory=list)

    @property
    def instructions(self) -> list[str]:
        """Every instruction, definitions first."""
        return [*self.definitions, *self.output_format, *self.standpoint]


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences; an abbreviation's full stop ends none."""
    out: list[str] = []
    for piece in _END.split(" ".join(text.split())):
        if out and _ABBREVIATION.search(out[-1]) and not _ASKS.match(piece):
            out[-1] = f"{out[-1]} {piece}"
        elif piece.strip():
            out.append(piece.strip())
    return out


def kind_of(sentence: str) -> str:
    """``definition``, ``format``, ``standpoint`` or ``question``.

    A sentence that asks (a question mark, a question word, "calculate ...") is a question
    unless it is only about the answer's form ("Answer in USD millions?" is rare; "Round
    your answer to two decimals." is a format).
    """
    if _FORMAT.search(sentence) and not sentence.rstrip().endswith("?"):
        return "format"
    if _STANDPOINT.search(sentence) and not sentence.rstrip().endswith("?"):
        return "standpoint"
    if _DEFINITION.search(sentence) and not sentence.rstrip().endswith("?"):
        return "definition"
    return "question"


def split_instructions(text: str) -> Split:
    """The question of ``text`` and its instructions, sentence by sentence.

    The question keeps its sentences in order; with no sentence left that asks, the whole
    text is the question (nothing is lost).
    """
    parts: list[str] = []
    kinds: list[str] = []
    for sentence in sentences(text):
        kind = kind_of(sentence)
        where = _WHERE_TO_LOOK.match(sentence) if kind == "question" else None
        rest = sentence[where.end():] if where else ""
        if where and _ASKS.search(rest):
            parts += [f"{where.group(0).strip().rstrip(',')}.", rest[:1].upper() + rest[1:]]
            kinds += ["standpoint", "question"]
        else:
            parts.append(sentence)
            kinds.append(kind)
    asked = [s for s, k in zip(parts, kinds, strict=True) if k == "question"]
    if not asked or not any(_ASKS.search(s) for s in asked):
        return Split(question=" ".join(text.split()))
    pick = lambda wanted: [s for s, k in zip(parts, kinds, strict=True) if k == wanted]  # noqa: E731
    return Split(question=" ".join(asked), definitions=pick("definition"),
                 output_format=pick("format"), standpoint=pick("standpoint"))
