"""What a question is made of, read once per turn and carried in the graph's state.

:class:`ParsedQuestion` holds the question searched (instructions set apart), its named
subjects, the kind of answer it asks for, the years it names and the options it offers to
judge between. Every later step reads these fields instead of parsing the text again.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from archivist.agent.question.analysis import asks_to_judge, subject_terms
from archivist.agent.question.instructions import split_instructions
from archivist.agent.question.subjects import offered_subjects
from archivist.agent.text import YEAR as STATED_YEAR
from archivist.agent.text import years

#: "when" asks for a time only opening or closing a question: "What happens when the
#: process is killed?" asks for none.
_ASKS_YEAR = re.compile(r"\b(?:what|which)\s+year\b", re.IGNORECASE)
_ASKS_TIME = re.compile(r"^\W*when\b|\bwhen\W*$|\bwhat\s+(?:date|day|month|time)\b",
                        re.IGNORECASE)
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long|old|far|big|large)\b|\bwhat\s+(?:percentage|percent|share"
    r"|fraction|proportion|number|amount)\b|\b(?:ratio|margin|rate|growth)\b", re.IGNORECASE)
_STATES_TIME = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes"
    r"|thurs|fri|satur|sun)day\b|\b(?:morning|noon|afternoon|evening|night|midnight|spring"
    r"|summer|autumn|fall|winter|century|decade|yesterday|today|tomorrow|once|after|before"
    r"|during|until|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b",
    re.IGNORECASE)
_STATES_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"hundred|thousand|million|billion|once|twice|dozens?)\b", re.IGNORECASE)

YEAR, TIME, NUMBER, VERDICT, OTHER = "year", "time", "number", "verdict", "other"


@dataclass(frozen=True, kw_only=True)
class ParsedQuestion:
    """One question, read: what is searched, what is asked for, what comes with it."""

    text: str  # as the user wrote it
    question: str  # what is searched and split: the text without its instructions
    instructions: list[str] = field(default_factory=list)  # definitions, format, standpoint
    subjects: list[str] = field(default_factory=list)  # named terms, lower case
    kind: str = OTHER  # year, time, number, verdict or other
    years: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)  # "A or B?": the options

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the graph's state (a checkpoint holds no agent types)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, text: str = "") -> ParsedQuestion:
        """The parsed question stored in state; parsed from ``text`` when there is none."""
        if not data:
            return parse_question(text)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def states_what_is_asked(self, sentence: str) -> bool:
        """Whether ``sentence`` states the kind of thing asked: a year, a time, a number."""
        if self.kind == YEAR:
            return bool(STATED_YEAR.search(sentence))
        if self.kind == TIME:
            return bool(_STATES_TIME.search(sentence))
        if self.kind == NUMBER:
            return bool(_STATES_NUMBER.search(sentence))
        return True


def asks_for_a_kind(question: str) -> bool:
    """Whether ``question`` asks for a year, a time or a number."""
    return answer_kind(question) in (YEAR, TIME, NUMBER)


def states_what_is_asked(question: str, sentence: str) -> bool:
    """Whether ``sentence`` states the kind of thing ``question`` asks for, where it says one."""
    return ParsedQuestion(text=question, question=question,
                          kind=answer_kind(question)).states_what_is_asked(sentence)


def answer_kind(question: str) -> str:
    """What ``question`` asks for: a year, a time, a number, a verdict, or other."""
    if asks_to_judge(question):
        return VERDICT
    if _ASKS_YEAR.search(question):
        return YEAR
    if _ASKS_TIME.search(question):
        return TIME
    if _ASKS_NUMBER.search(question):
        return NUMBER
    return OTHER


def parse_question(text: str) -> ParsedQuestion:
    """``text`` read once: its question, instructions, subjects, kind, years and options."""
    split = split_instructions(text)
    question = split.question
    return ParsedQuestion(
        text=" ".join(text.split()), question=question, instructions=split.instructions,
        subjects=sorted(subject_terms(question)), kind=answer_kind(question),
        years=years(question), offered=offered_subjects(question),
    )
