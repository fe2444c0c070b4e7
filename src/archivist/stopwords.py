"""The English stop words, one list for every part that drops them.

:data:`STOP_WORDS` is the classic list of Lucene/Anserini's BM25 baselines plus a few very
common function words: BM25 (:mod:`archivist.index.sparse`) drops exactly these, so a change
here changes every sparse vector (re-index). The agent's word matching keeps those a
question can hinge on and adds the words of a request ("tell me about ..."); multi-hop
title matching keeps those that start titles and adds those that never name a page.
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with", "i", "me", "my", "we", "our",
        "you", "your", "he", "him", "his", "she", "her", "its", "them", "what", "which", "who",
        "whom", "am", "were", "been", "being", "have", "has", "had", "do", "does", "did",
        "from", "up", "down", "out", "over", "under", "again", "further", "once", "here",
        "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most",
        "other", "some", "own", "same", "so", "than", "too", "very", "can", "just", "should",
        "now",
    ]
)

#: Words of a request that carry no subject: "tell me about X", "X also ...".
REQUEST_WORDS = frozenset(["about", "also", "tell"])

#: Stop words that still count as content words of a question or a passage: pronouns,
#: quantities, auxiliaries and negations ("did he", "more than", "all of", "no longer").
#: The agent's checks (is a question vague, is a passage on its subject) count them.
QUESTION_WORDS = frozenset(
    [
        "again", "all", "am", "any", "been", "being", "both", "but", "did", "down", "each",
        "few", "further", "had", "has", "have", "he", "her", "here", "him", "his", "if", "just",
        "more", "most", "no", "now", "once", "other", "our", "out", "over", "own", "same",
        "she", "should", "some", "such", "too", "under", "up", "very", "we", "were", "whom",
    ]
)

#: Stop words that still count in a page title: they start names and titles ("Will
#: Smith", "Down by Law", "Just Dance"), so multi-hop title matching keeps them.
TITLE_WORDS = frozenset(
    [
        "again", "all", "am", "any", "being", "can", "did", "do", "does", "down", "each", "few",
        "further", "had", "has", "have", "here", "him", "into", "just", "me", "more", "most",
        "my", "no", "now", "once", "other", "our", "out", "over", "own", "same", "should",
        "so", "some", "such", "them", "too", "under", "up", "very", "will", "your",
    ]
)

MONTHS = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"]
)
#: Capitalised words that are dates, not names: months and weekdays.
DATE_WORDS = MONTHS | frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)

#: What multi-hop title matching drops: the stop words but :data:`TITLE_WORDS`, and words
#: that never name a page on their own (months, "one", roman "ii", "also").
TITLE_STOP_WORDS = (STOP_WORDS - TITLE_WORDS) | MONTHS | frozenset(
    ["after", "also", "before", "during", "those", "one", "ii"]
)

_CONTENT_WORD = re.compile(r"[a-z0-9+#]+")
_CONTENT_STOP = (STOP_WORDS - QUESTION_WORDS) | REQUEST_WORDS


def content_words(text: str) -> set[str]:
    """Content words of ``text``: lower-cased, stop words and single letters dropped."""
    return {w for w in _CONTENT_WORD.findall(text.lower()) if w not in _CONTENT_STOP and len(w) > 1}


def singular(word: str) -> str:
    """A crude singular of a lower-cased word: "revenues" -> "revenue" ("loss" stays)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
