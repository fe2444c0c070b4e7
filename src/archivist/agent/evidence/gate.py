"""Evidence checks: which passages count, and which follow-up queries are worth running.

* :func:`on_subject`: whether passages mention the question's named subjects. A grader
  may keep a footnote about the Northern Capital District for "What is the capital of
  Veldoria?"; passages that name none of the question's subjects are not evidence for it.
* :func:`score_gate` keeps, for a question that offers subjects to judge between ("The
  Marrows or Velvet Orchard?"), each one's best passage, and :func:`offered_sections` has
  each one's best unit shown: a 1.5B run kept one band's page alone,
  and the claim check then rightly refused any verdict.
* :func:`restates`: a next hop that repeats a search, or restates the question, is not run.
* :func:`bridge_query`: the next hop's query, by code, from the passages an answer that
  said nothing pointed at; :func:`names_section`: a hit of that hop whose section the
  query names (the bridge's own page) is evidence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable

from archivist.agent.checks.claims import strip_citations
from archivist.agent.question.analysis import subject_terms, word_kept
from archivist.agent.question.subjects import mentions, offered_subjects, own_words
from archivist.agent.state import Evidence
from archivist.agent.text import named, title
from archivist.stopwords import DATE_WORDS, STOP_WORDS, content_words

_TOKENS = re.compile(r"[a-z0-9+#]+")
_NAME = re.compile(r"\b[A-Z][\w'’-]*")
_ASKED = re.compile(r"[A-Za-z0-9][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s$")
BRIDGE_NAMES = 6
#: Names a hop after an answer takes from it: an answer states few, and each may be the
#: bridge ("films such as Iron Meadow, Quiet Harbour ...")
ANSWER_NAMES = 10
BRIDGE_WORDS = 8


def mentioned(evidence: Iterable[Evidence]) -> set[str]:
    """The words of the passages' text, section headings and document names (lower case)."""
    words: set[str] = set()
    for item in evidence:
        words.update(_TOKENS.findall(_place(item).lower()))
        words.update(_TOKENS.findall(item.get("text", "").lower()))
    return words


def _place(item: Evidence) -> str:
    """Where a passage comes from: its section's headings, its document's name and what it is.

    What the document is (its title and filing) makes a page of ``1.pdf`` name the company
    it files for.
    """
    return " ".join([*item.get("heading_path", []), item.get("document_name", ""),
                     item.get("document_about", "")])


def on_subject(question: str, evidence: Iterable[Evidence]) -> bool:
    """Whether the passages name half the question's subjects (at most two are needed).

    Their text, section headings and document name count. A question without named
    subjects ("How can I keep my session for later?") passes. "Which singer is Canadian, Lena Farrow
    or Dario Quist?" names five; a passage on Dario Quist names two and is on the subject.
    """
    terms = subject_terms(question)
    if not terms:
        return True
    return len(subjects_named(question, evidence)) >= min(math.ceil(len(terms) / 2), 2)


def subjects_named(question: str, evidence: Iterable[Evidence]) -> set[str]:
    """The question's named subjects (lower-cased) the passages name."""
    return _named(subject_terms(question), mentioned(evidence))


def _named(terms: set[str], words: set[str]) -> set[str]:
    """The terms that ``words`` name, whole or by a shared stem (``text.named``)."""
    return {term for term in terms if named(term, words)}


def restates(query: str, question: str, queries_run: Collection[str]) -> bool:
    """Whether a proposed next hop only repeats a search or restates the question.

    The 1.5B grader proposed "What were Halvard's net sales in fiscal 2022? (from the passage
    about the March 2022 quarter)" as the next hop of that very question: a query holding every
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
#: Share of the question's content words (a shared five-letter stem counts) the best
#: passage must hold for anything to be kept ...
GATE_COVERAGE = 0.25
#: ... and share of the best passage's coverage every kept passage must reach. Both were
#: calibrated on the shared sets (bench/gate_calibration.py; docs/results.md).
GATE_RATIO = 0.5


def coverage(question: str, text: str) -> float:
    """The share of the question's content words that ``text`` holds (stems count)."""
    asked = content_words(question)
    if not asked:
        return 1.0
    held = content_words(text)
    return sum(1 for word in asked if word_kept(word, held)) / len(asked)


def gate_coverage(question: str, item: Evidence) -> float:
    """A passage's coverage of the question (0 when it does not name its subjects).

    Its section headings and document name count with its text.
    """
    if not on_subject(question, [item]):
        return 0.0
    return coverage(question, f"{_place(item)} {item.get('text', '')}")


def score_gate(
    question: str, items: list[Evidence], keep: int = GATE_KEEP,
    min_coverage: float = GATE_COVERAGE, ratio: float = GATE_RATIO, top_hits: int = 0,
) -> tuple[list[Evidence], list[Evidence]]:
    """The passages kept (at most ``keep + top_hits``, in rank order) and dropped, by code.

    Nothing is kept unless the best passage holds ``min_coverage`` of the question's
    words; then every passage within ``ratio`` of the best one's coverage is, best ranked
    first. When anything is kept, the first ``top_hits`` of the search's ranking are kept
    too, whatever they name: a later hop's page rarely names the question's subjects.
    """
    scores = [gate_coverage(question, item) for item in items]
    best = max(scores, default=0.0)
    bar = max(min_coverage, ratio * best)
    passed = [best >= min_coverage and score >= bar and score > 0 for score in scores]
    if best >= min_coverage:
        passed = [ok or rank < top_hits for rank, ok in enumerate(passed)]
    kept: list[Evidence] = []
    dropped: list[Evidence] = []
    for item, ok in zip(items, passed, strict=True):
        if ok and len(kept) < keep + top_hits:
            kept.append(item)
        else:
            dropped.append(item)
    for words in own_words(offered_subjects(question)).values():
        if not words or any(_names_subject(item, words) for item in kept):
            continue
        found = next((item for item in dropped if _titled(item, words)), None) or next(
            (item for item in dropped if _names_subject(item, words)), None)
        if found is not None:  # "The Marrows or Velvet Orchard?": each one's best passage
            kept.append(found)
            dropped.remove(found)
    return kept, dropped


def _titled(item: Evidence, words: set[str]) -> bool:
    """Whether a passage's section title names a subject (by its own words)."""
    headings = item.get("heading_path") or []
    return bool(headings) and mentions(headings[-1], words)


def _names_subject(item: Evidence, words: set[str]) -> bool:
    return _titled(item, words) or mentions(item.get("text", ""), words, every=True)


def offered_sections(question: str, evidence: Iterable[Evidence]) -> set[str]:
    """The sections (parent ids) whose title names a subject the question offers to judge.

    Their best units are shown to the writer whatever their score: "Which band was formed
    first, The Marrows or Velvet Orchard?" needs each band's founding year, and the question
    shares most of its words with one band's page.
    """
    subjects = [w for w in own_words(offered_subjects(question)).values() if w]
    return {item["parent_id"] for item in evidence
            if any(_titled(item, words) for words in subjects)}


def bridge_query(question: str, pointed: Iterable[Evidence], names: int = BRIDGE_NAMES) -> str:
    """The next hop's query, from the passages an answer that said nothing pointed at.

    First the names they state that the question does not, then the question's own words
    that are not its named subjects; "" when they name nothing new.

    Asked where the town Ilse Varga was born stood at the 2011 census, the 1.5B model
    answered "[1]" over "Ilse Varga (born 1931 in Tessendorf, Lower Korvath)": the passage
    names the bridge (Tessendorf), and the population is in Tessendorf's own article, which
    a search for the question does not reach. ``"Tessendorf Lower Korvath ... population
    census town born"`` does.
    """
    asked = {_POSSESSIVE.sub("", w.lower()) for w in _ASKED.findall(question)}
    found: list[str] = []
    for item in pointed:
        for word in _NAME.findall(item.get("text", "")):
            low = _POSSESSIVE.sub("", word.lower()).strip("'’-")
            if (low not in asked and low not in STOP_WORDS and low not in DATE_WORDS
                    and word not in found):
                found.append(word)
    if not found:
        return ""
    subjects = subject_terms(question)
    words = [w for w in dict.fromkeys(_ASKED.findall(question.lower()))
             if w not in subjects and w in content_words(w)]
    return " ".join([*found[:names], *words[:BRIDGE_WORDS]])


def answer_query(question: str, answer: str) -> str:
    """The hop query after an answer: the names it states that the question does not.

    A two-hop question answered at its first hop names the bridge: "Mara Quell starred in
    The Lantern Road" for "... whose lead was a Welsh actress later cast in which series
    for six seasons?" (the 1.5B). The actress's own page, which says what,
    is in no passage the question found. "" when the answer names nothing new.
    """
    text = strip_citations(answer)
    return bridge_query(question, [{"text": text}], names=ANSWER_NAMES)  # type: ignore[typeddict-item]


def names_section(query: str, item: Evidence) -> bool:
    """Whether ``query``'s names (its capitalised words) name a passage's section title.

    A bridge hop searches for the page of the name a first passage stated: "K Lorne Pale
    Rider Sessions Ada winter third studio album state" is after "K. Lorne" (the singer
    of "Hollow Lantern"), whose page says where he is from. The score gate measured that
    page against all the query's words and the names of the album's passage that came
    along ("Pale Rider Sessions"), and dropped it (a 1.5B run). Its title, without a
    qualifier ("Harwick" of "Harwick, South Dorran"), is what the hop asked for.
    """
    heading = title(item.get("heading_path"))
    words = {w for w in _TOKENS.findall(heading.lower()) if w not in STOP_WORDS}
    named = {w for name in _NAME.findall(query) for w in _TOKENS.findall(name.lower())}
    return bool(words) and words <= named
