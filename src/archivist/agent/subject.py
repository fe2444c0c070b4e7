"""Checks by code on what a question is about, for models too small to be trusted with them.

* :func:`looks_compound`: whether a question can be asking for separate things at all
  (two question marks, or a joining word). A one-part question is never split, whatever
  the analysing model proposes: a 1.5B model splits "How do I read a CSV file into R?"
  into three sub-questions.
* :func:`subject_terms`: the named things a question asks about (capitalised words and
  acronyms past the first word: "Mongolia", "Mona Lisa", "CSV", "R").
* :func:`may_be_ambiguous`: whether a question refers to something it does not name ("it",
  "that thing"). Only such a question is asked back: the 1.5B model asked "What is
  Netflix?" back for "How many paid streaming memberships did Netflix have in 2017?".
* :func:`is_small_talk`: whether a question is only greeting, thanks or talk about the
  assistant. Only such a question gets a direct reply: the 0.5B model routed "How hot
  should the water be for green tea?" to ``direct`` and answered "100°F" from nowhere.
* :func:`on_subject`: whether passages mention those things. A grader may keep a footnote
  about the Australian Capital Territory for "What is the capital of Mongolia?"; passages
  that name none of the question's subjects are not evidence for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from archivist.agent.state import Evidence
from archivist.agent.steps import content_words

_JOINERS = re.compile(
    r"\b(and|as well as|also|plus|versus|vs\.?|compared? (to|with)|respectively)\b|;",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]*")
_TOKENS = re.compile(r"[a-z0-9+#]+")
#: Capitalised words that name no subject (question words, pronouns, fillers).
_NOT_SUBJECTS = frozenset(
    ["please", "thanks", "hi", "hello", "ok", "okay", "could", "would", "should", "did",
     "has", "have", "had", "were", "give", "list", "explain", "describe", "show", "we", "our",
     "he", "she", "his", "her", "us", "any", "all", "some", "one", "i",
     "january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
     "friday", "saturday", "sunday"]
)


def looks_compound(question: str) -> bool:
    """Whether ``question`` may ask for more than one thing (else it is never split)."""
    return question.count("?") >= 2 or bool(_JOINERS.search(question))


_REFERENCES = frozenset(
    ["it", "its", "that", "this", "these", "those", "they", "them", "their", "he", "she",
     "him", "her", "one", "ones", "thing", "things", "stuff", "there", "same", "other",
     "former", "latter", "above"]
)


#: Words a greeting, thanks or a question about the assistant is made of.
_SMALL_TALK = frozenset(
    ["hello", "hi", "hey", "hiya", "howdy", "greetings", "good", "morning", "afternoon",
     "evening", "night", "day", "today", "thanks", "thank", "thx", "cheers", "bye", "goodbye",
     "see", "later", "ok", "okay", "great", "nice", "cool", "awesome", "perfect", "helpful",
     "help", "friend", "buddy", "there", "doing", "going", "fine", "well", "please", "much",
     "lot", "yourself", "name", "assistant", "archivist", "bot", "up", "sup", "again", "very",
     "just", "all", "everyone", "pleased", "meet", "glad", "welcome", "could", "would",
     "have", "has", "been", "here", "now", "yes", "no", "sure", "oh", "wow", "alright", "ya"]
)


def is_small_talk(question: str) -> bool:
    """Whether ``question`` is only greeting, thanks or talk about the assistant.

    Every content word must be small-talk vocabulary: "Hello!", "How are you today?",
    "Who are you?" and "Thanks, that was helpful" are; "How hot should the water be for
    green tea?" is not, whatever a model routes it to.
    """
    return content_words(question) <= _SMALL_TALK


def may_be_ambiguous(question: str) -> bool:
    """Whether ``question`` refers to something it does not name.

    That takes a reference word ("it", "that", "the other one") and no named subject: a
    question without reference words names everything it asks about, and in "What were
    Netflix's revenues and its net income?" the "its" is Netflix (the 1.5B model asked
    "What is Netflix?" back for both).
    """
    refers = bool(_REFERENCES & set(_TOKENS.findall(question.lower())))
    return refers and not subject_terms(question)


def subject_terms(question: str) -> set[str]:
    """Lower-cased named terms of ``question``: capitalised words after its first word."""
    terms: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", question.strip()):
        for word in _WORD.findall(sentence)[1:]:
            lowered = word.lower()
            if not word[0].isupper() or lowered in _NOT_SUBJECTS:
                continue
            if lowered in content_words(lowered) or len(word) == 1:
                terms.add(lowered)
    return terms


def keep_subjects(question: str, sub_question: str) -> str:
    """``sub_question`` naming the question's subjects when it names none of them.

    The 1.5B model split "How many shares did Amcor repurchase in fiscal 2023, and at what
    total cost?" into a first part naming Amcor and "What was the total cost?"; searched
    alone, the second found Netflix's cost of revenues and the answer cited it.
    """
    terms = subject_terms(question)
    if not terms or terms & set(_TOKENS.findall(sub_question.lower())):
        return sub_question
    names = [w for w in dict.fromkeys(_WORD.findall(question)) if w.lower() in terms]
    return f"{sub_question.rstrip()} ({', '.join(names)})"


def _mentioned(evidence: Iterable[Evidence]) -> set[str]:
    words: set[str] = set()
    for item in evidence:
        words.update(_TOKENS.findall(item.get("text", "").lower()))
        words.update(_TOKENS.findall(item["document_name"].lower()))
    return words


def on_subject(question: str, evidence: Iterable[Evidence]) -> bool:
    """Whether the passages (text or document name) name at least half of the subjects.

    A question without named subjects ("How can I save my workspace?") passes.
    """
    terms = subject_terms(question)
    if not terms:
        return True
    found = terms & _mentioned(evidence)
    return len(found) >= math.ceil(len(terms) / 2)


def fully_on_subject(question: str, evidence: Iterable[Evidence]) -> bool:
    """Whether every named subject of the question appears in the passages."""
    return subject_terms(question) <= _mentioned(evidence)
