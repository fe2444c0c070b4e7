"""Answer and evidence scores: SQuAD exact match / token F1, gold-document, page, phrase recall.

Every function returns ``None`` when the item has no gold data for it, so the average
skips it (see :func:`archivist.evaluation.metrics.mean`).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import PurePath

__all__ = [
    "abstained",
    "abstention_correct",
    "citation_correct",
    "document_recall",
    "exact_match",
    "facts_found",
    "normalize_answer",
    "page_recall",
    "phrase_recall",
    "same_document",
    "token_f1",
    "without_citations",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


_CITATION = re.compile(
    r"\[[^\[\]]*(?:\.(?:pdf|md|markdown|txt|html?|docx)\b|\bpp?\. ?\d)[^\[\]]*\]", re.IGNORECASE
)


def without_citations(answer: str) -> str:
    """The answer with its document citations (``[guide.pdf, p. 3]``, ``[notes.md]``) removed.

    What an answer states is scored without them: "[read.fwf.pdf, p. 15]" alone named the
    key fact ``read.fwf`` inside a made-up citation and was scored correct.
    """
    return " ".join(_CITATION.sub(" ", answer).split())


def exact_match(prediction: str, references: Iterable[str]) -> float | None:
    """1.0 when the normalised answer equals any normalised reference."""
    refs = [normalize_answer(r) for r in references]
    if not refs:
        return None
    return float(normalize_answer(prediction) in refs)


def _f1(prediction: str, reference: str) -> float:
    pred, gold = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, references: Iterable[str]) -> float | None:
    """SQuAD token F1 against the best-matching reference."""
    refs = list(references)
    if not refs:
        return None
    return max(_f1(prediction, r) for r in refs)


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def phrase_recall(phrases: Iterable[str], contexts: Iterable[str]) -> float | None:
    """Share of phrases found (case- and whitespace-insensitive) in the texts the agent read."""
    wanted = [_squash(p) for p in phrases if p.strip()]
    if not wanted:
        return None
    haystack = "\n".join(_squash(c) for c in contexts)
    return sum(p in haystack for p in wanted) / len(wanted)


def same_document(gold: str, name: str) -> bool:
    """A gold name matches a catalog name exactly, or by stem (``10K`` = ``10K.pdf``)."""
    if gold == name:
        return True
    return PurePath(gold).stem.lower() == PurePath(name).stem.lower()


def document_recall(gold: Iterable[str], found: Iterable[str]) -> float | None:
    """Share of gold documents among ``found`` (names)."""
    gold_list = list(dict.fromkeys(gold))
    if not gold_list:
        return None
    names = list(found)
    return sum(any(same_document(g, n) for n in names) for g in gold_list) / len(gold_list)


def page_recall(
    gold: Iterable[tuple[str, int]], found: Iterable[tuple[str, int | None, int | None]]
) -> float | None:
    """Share of gold ``(document, page)`` pairs inside a found ``(document, start, end)``."""
    gold_list = list(dict.fromkeys(gold))
    if not gold_list:
        return None
    spans = list(found)

    def covered(doc: str, page: int) -> bool:
        return any(
            same_document(doc, name) and start is not None and start <= page <= (end or start)
            for name, start, end in spans
        )

    return sum(covered(d, p) for d, p in gold_list) / len(gold_list)


_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_ABSTAIN_MARKS = ("do not contain", "does not contain", "don't contain", "no information")
_UNKNOWN_OPENINGS = ("i don't know", "i do not know", "unknown")


def _plain(text: str) -> str:
    """Lower case, single spaces, no thousands separators (``11,692`` = ``11692``)."""
    return _DIGIT_COMMA.sub("", _squash(text))


def _mentions(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as a whole token run (``67`` is not in ``1967``)."""
    wanted = _plain(phrase)
    pattern = rf"(?<![a-z0-9]){re.escape(wanted)}(?![a-z0-9])"
    return bool(wanted) and re.search(pattern, text) is not None


_DECIMAL_FACT = re.compile(r"^\$?(\d+\.\d+)%?$")
_DECIMAL = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\d.]*\d)")


def _rounds_to(text: str, fact: str) -> bool:
    """Whether ``text`` states a more precise number that rounds (half up) to decimal ``fact``.

    ``34.6%`` is stated by "34.64%"; a whole number (``2013``) only as written.
    """
    match = _DECIMAL_FACT.match(fact.strip())
    if match is None:
        return False
    wanted = Decimal(match.group(1))
    step = Decimal(1).scaleb(wanted.as_tuple().exponent)  # type: ignore[arg-type]
    return any(Decimal(found).as_tuple().exponent < wanted.as_tuple().exponent  # type: ignore[operator]
               and Decimal(found).quantize(step, ROUND_HALF_UP) == wanted
               for found in _DECIMAL.findall(text))


def facts_found(answer: str, key_facts: Iterable[str]) -> float | None:
    """1.0 when the answer states every key fact (``"a|b"``: either), else 0.0.

    Matching ignores case, spacing and thousands separators; code like ``read.csv`` and
    ``q()`` is matched as written, so the check suits short factual and code answers. A
    decimal figure is also stated by a more precise one that rounds to it.
    """
    facts = [f for f in key_facts if f.strip()]
    if not facts:
        return None
    text = _plain(answer)
    return float(all(any(_mentions(text, alt) or _rounds_to(text, alt) for alt in f.split("|"))
                     for f in facts))


def abstained(answer: str) -> bool:
    """Whether an answer declines: "the documents do not contain ...", "I don't know"."""
    head = _squash(answer)[:300].replace("\u2019", "'")
    return head.startswith(_UNKNOWN_OPENINGS) or any(m in head for m in _ABSTAIN_MARKS)


def abstention_correct(answerable: bool | None, answer: str) -> float | None:
    """1.0 when the answer abstains exactly when the documents cannot answer.

    A reply that is only a citation ("[read.fwf.pdf, p. 15]", naive RAG's whole answer on
    the 1.5B model) neither answers nor abstains: it scores 0 either way.
    """
    if answerable is None:
        return None
    if not without_citations(answer):
        return 0.0
    return float(abstained(answer) != answerable)


def citation_correct(
    gold: Iterable[tuple[str, int]], cited: Iterable[tuple[str, int | None, int | None]],
    answer: str,
) -> float | None:
    """1.0 when a cited page holds the answer (is a gold page); ``None`` on an abstention.

    Defined for items with gold pages only; an answer that cites nothing scores 0.0.
    """
    gold_list = list(gold)
    if not gold_list or abstained(answer):
        return None
    recall = page_recall(gold_list, cited)
    return float(bool(recall))
