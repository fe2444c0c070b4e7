"""Evidence checks: which passages count, and which follow-up queries are worth running.

* :func:`on_subject`: whether passages mention the question's named subjects. A grader
  may keep a footnote about the Australian Capital Territory for "What is the capital of
  Mongolia?"; passages that name none of the question's subjects are not evidence for it.
* :func:`grounded_query`: a rewritten or next-hop query must name something the question
  or the passages name.
* :func:`restates`: a next hop that repeats a search, or restates the question, is not run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable

from archivist.agent.policy.question import subject_terms, word_kept
from archivist.agent.state import Evidence
from archivist.stopwords import content_words

_TOKENS = re.compile(r"[a-z0-9+#]+")


def _mentioned(evidence: Iterable[Evidence]) -> set[str]:
    words: set[str] = set()
    for item in evidence:
        words.update(_TOKENS.findall(item.get("text", "").lower()))
        words.update(_TOKENS.findall(item["document_name"].lower()))
    return words


def on_subject(question: str, evidence: Iterable[Evidence]) -> bool:
    """Whether the passages (text or document name) name half the subjects, at most two.

    A question without named subjects ("How can I save my workspace?") passes. "Which
    singer is American, Mark King or Nick Hexum?" names five; a passage on Nick Hexum
    names two and is on the subject.
    """
    terms = subject_terms(question)
    if not terms:
        return True
    found = terms & _mentioned(evidence)
    return len(found) >= min(math.ceil(len(terms) / 2), 2)


def fully_on_subject(question: str, evidence: Iterable[Evidence]) -> bool:
    """Whether every named subject of the question appears in the passages."""
    return subject_terms(question) <= _mentioned(evidence)


def grounded_query(query: str, source: str) -> str:
    """``query`` when it shares a content word with ``source``, else "".

    The query comes back with its whitespace normalised, at most 300 characters. A
    rewritten query must still be about the question, and a next hop must name what the
    relevant passages name: the 1.5B model copied the prompt's example ("Tamsin Orwell
    university") as the next query for a question about Netflix.
    """
    query = " ".join(query.split())[:300]
    if query and not content_words(query) & content_words(source):
        return ""
    return query


def restates(query: str, question: str, queries_run: Collection[str]) -> bool:
    """Whether a proposed next hop only repeats a search or restates the question.

    The 1.5B grader proposed "What were Amcor's net sales in fiscal 2023? (from the passage
    about June 2023 quarter)" as the next hop of that very question: a query holding every
    content word of the question finds nothing new and costs a grading call.
    """
    if query.lower() in {q.lower() for q in queries_run}:
        return True
    asked = content_words(question)
    return bool(asked) and asked <= content_words(query)


def keyword_query(question: str) -> str:
    """A fallback rewrite when the grader gives none: the question's content words."""
    wanted = content_words(question)
    words = [w for w in re.findall(r"[a-z0-9+#]+", question.lower()) if w in wanted]
    return " ".join(dict.fromkeys(words))


# --- the score gate: relevance by code instead of a grading call -------------------------
#: Passages the gate keeps at most, in the search's rank order.
GATE_KEEP = 4
#: Share of the question's content words a passage must hold (a shared five-letter stem
#: counts) to be kept; calibrated on the shared evaluation sets (docs/results.md).
GATE_COVERAGE = 0.34


def coverage(question: str, text: str) -> float:
    """The share of the question's content words that ``text`` holds (stems count)."""
    asked = content_words(question)
    if not asked:
        return 1.0
    held = content_words(text)
    return sum(1 for word in asked if word_kept(word, held)) / len(asked)


def passes_gate(question: str, item: Evidence, min_coverage: float = GATE_COVERAGE) -> bool:
    """Whether one passage is evidence for ``question``, by code alone.

    It must name the question's subjects and hold enough of its words (its section's
    headings and its document's name count).
    """
    if not on_subject(question, [item]):
        return False
    place = " ".join([*item.get("heading_path", []), item["document_name"]])
    return coverage(question, f"{place} {item.get('text', '')}") >= min_coverage


def score_gate(
    question: str, items: list[Evidence], keep: int = GATE_KEEP,
    min_coverage: float = GATE_COVERAGE,
) -> tuple[list[Evidence], list[Evidence]]:
    """The passages kept (at most ``keep``, in rank order) and dropped, by code alone."""
    kept: list[Evidence] = []
    dropped: list[Evidence] = []
    for item in items:
        if len(kept) < keep and passes_gate(question, item, min_coverage):
            kept.append(item)
        else:
            dropped.append(item)
    return kept, dropped
