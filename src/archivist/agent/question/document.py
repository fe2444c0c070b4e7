"""Whole-document questions, recognised in code: "Summarize X", "List the sections of X".

Top-k passages cannot answer a question about a whole document: "Summarize
BRIGHTWAVE_2020_10K.pdf" answered from five chunks is a summary of five chunks. Such a
question names a document of the library (its file name, with or without the suffix) and
asks for one of two things:

* ``headings``: its sections ("List the sections of X", "What chapters does X have",
  "table of contents"): answered from the catalog, with no model call at all;
* ``summary``: what it, or one of its sections, says ("Summarize X", "Give an overview of
  X", "List all risk factors in X", "What does the Risk Factors section of X cover"): a
  map-reduce over its sections (``research/document.py``).

What remains of the question once the document's name and the words of the request are
taken out is its *focus*: words that may name a section ("risk factors", "Item 7"). A
focus that names no heading of the document leaves the question to the ordinary path,
which searches within the named document first (see :func:`named_document`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from archivist.stopwords import STOP_WORDS, singular

__all__ = ["DocumentAsk", "focus_words", "heading_words", "named_document", "whole_document"]

HEADINGS = "headings"
SUMMARY = "summary"

_SUMMARY = re.compile(
    r"\b(?:summari[sz]e\w*|summary|overview|recap|gist|tl;?dr|main (?:points|ideas|topics)|"
    r"key (?:points|facts|takeaways|ideas)|highlights)\b",
    re.IGNORECASE)
_HEADINGS = re.compile(
    r"\b(?:list|name|enumerate|show|give|what are|which are|what)\b[^?]*?"
    r"\b(?:headings?|sections|chapters|parts|items|outline|structure)\b|"
    r"\btable of contents\b|\bhow is\b[^?]*\b(?:organi[sz]ed|structured)\b",
    re.IGNORECASE)
_TOP_LEVEL = re.compile(r"\b(?:chapters?|top[- ]level|main (?:sections|headings|parts))\b",
                        re.IGNORECASE)
_LIST_ALL = re.compile(r"\blist (?:all|every|each)\b", re.IGNORECASE)
_COVERS = re.compile(
    r"\bwhat (?:does|do|is|are)\b[^?]*\b(?:cover|covers|covered|discuss|discussed|about|"
    r"contain|contains|explain|explains|describe|describes)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9]+")
#: words of a whole-document request, never of its focus
_REQUEST = frozenset([
    "summarize", "summarise", "summarizes", "summary", "summaries", "overview", "recap",
    "gist", "tldr", "tl", "dr", "main", "key", "points", "ideas", "topics", "facts",
    "takeaways", "highlights", "list", "lists", "every", "each", "give", "show", "name",
    "enumerate", "heading", "headings", "section", "sections", "chapter", "chapters",
    "outline", "structure", "table", "contents", "cover", "covers", "covered", "discuss",
    "discussed", "contain", "contains", "explain", "explains", "describe", "describes",
    "document", "file", "whole", "entire", "please", "briefly", "short", "brief",
    "organized", "organised", "structured", "say", "says", "tell", "about",
])
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,5}$")
_NAME_LIKE = re.compile(r"[\d_-]")


@dataclass(frozen=True)
class DocumentAsk:
    """A whole-document question: which document, what kind of answer, and its focus."""

    document: str  # the document's file name, as the catalog has it
    kind: str  # HEADINGS or SUMMARY
    focus: frozenset[str] = field(default_factory=frozenset)
    top_level: bool = False  # "List the chapters of X": the first level of headings only


def heading_words(text: str) -> set[str]:
    """The words of a heading, lower-cased and stemmed (numbers such as "7" and "1a" kept)."""
    return {singular(w) for w in _TOKEN.findall(text.lower()) if w not in STOP_WORDS}


def named_document(question: str, names: Sequence[str]) -> str | None:
    """The one document whose file name (or name without its suffix) the question names.

    The name without its suffix counts only when it cannot be an ordinary word: four
    characters or more, with a digit, ``_`` or ``-`` in it ("R-data", but not "notes" of
    notes.md). Two different documents named is no single document (``None``).
    """
    lowered = question.lower()
    found: dict[str, int] = {}
    for name in names:
        stem = _SUFFIX.sub("", name)
        forms = [name] if stem == name or not _NAME_LIKE.search(stem) else [name, stem]
        for form in forms:
            if len(form) < 4:
                continue
            pattern = rf"(?<![\w.-]){re.escape(form.lower())}(?![\w-]|\.\w)"
            if re.search(pattern, lowered):
                found[name] = max(found.get(name, 0), len(form))
    if len(found) != 1:
        return None
    return next(iter(found))


def focus_words(question: str, document: str) -> frozenset[str]:
    """The question's words once the document's name and the request's words are gone."""
    rest = re.sub(re.escape(_SUFFIX.sub("", document)) + r"(?:\.\w+)?", " ", question,
                  flags=re.IGNORECASE)
    words = {w for w in _TOKEN.findall(rest.lower())
             if w not in STOP_WORDS and w not in _REQUEST}
    return frozenset(singular(w) for w in words)


def whole_document(question: str, names: Sequence[str]) -> DocumentAsk | None:
    """The whole-document question ``question`` asks, or ``None`` for any other question."""
    document = named_document(question, names)
    if document is None:
        return None
    if _SUMMARY.search(question):
        kind = SUMMARY
    elif _HEADINGS.search(question):
        kind = HEADINGS
    elif _LIST_ALL.search(question) or _COVERS.search(question):
        kind = SUMMARY
    else:
        return None
    return DocumentAsk(document=document, kind=kind, focus=focus_words(question, document),
                       top_level=kind == HEADINGS and bool(_TOP_LEVEL.search(question)))
