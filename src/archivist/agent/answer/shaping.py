"""Text steps on a draft answer: markup out, repeats out, an answer of citations quoted.

* :func:`without_markup`: the prompt's own tags are taken out of an answer.
* :func:`without_repeats`: a sentence said again is dropped, and a last sentence cut off
  by the reply cap that starts an earlier one.
* :func:`quote_cited`: an answer that is only citations becomes the sentences of the
  units it cites, each cited.
"""

from __future__ import annotations

import re

from archivist.agent.checks.claims import defuse_citations
from archivist.agent.evidence.unit_split import split_sentences, text_sentences
from archivist.agent.prompts import says_nothing
from archivist.agent.question import ParsedQuestion
from archivist.agent.state import Evidence
from archivist.agent.text import parse_citations, strip_citations
from archivist.stopwords import content_words

#: The tags the prompts wrap data in: a model copying one must not show it to the user.
_MARKUP = re.compile(r"[ \t]*</?(?:passage|sub_answer)\b[^<>]*>[ \t]*")
#: Cited units an answer of citations alone is quoted from, at most.
QUOTED_UNITS = 2
#: Words a sentence needs for a second saying of it to count as a repeat.
REPEAT_WORDS = 3


def quote_cited(question: ParsedQuestion, answer: str, units: list[Evidence]) -> str:
    """The sentences of the units an answer of only citations cites, each cited; else "".

    From each of the first :data:`QUOTED_UNITS` units cited, the sentence that states the
    kind of thing asked (a year, a number) and shares the most content words with the
    question. The answer says what the documents say, word for word.
    """
    if not says_nothing(answer):
        return ""
    asked = content_words(question.question)
    quoted: list[str] = []
    for number in [n for n in parse_citations(answer) if 1 <= n <= len(units)][:QUOTED_UNITS]:
        pieces = text_sentences(units[number - 1].get("text", ""))
        if not pieces:
            continue
        best = defuse_citations(max(reversed(pieces), key=lambda s: (
            question.states_what_is_asked(s), len(asked & content_words(s)))))
        if best not in " ".join(quoted):
            quoted.append(f"{best} [{number}]")
    return " ".join(quoted)


def _key(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", strip_citations(sentence).lower()))


def without_repeats(answer: str) -> str:
    """``answer`` with each sentence said once (headings, tables and code as they are)."""
    seen: set[str] = set()
    lines = []
    fenced = False  # inside a ``` code block, where a line may well repeat
    for line in answer.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith(("#", "|", "```", "    ")) or not line.strip():
            lines.append(line)
            continue
        sentences, kept = split_sentences(line), []
        for sentence in sentences:
            key = _key(sentence)
            if len(key.split()) >= REPEAT_WORDS and key in seen:
                continue
            seen.add(key)
            kept.append(sentence)
        if len(kept) == len(sentences):
            lines.append(line)
        elif kept:
            lines.append(line[: len(line) - len(line.lstrip())] + " ".join(kept))
    return _without_cut_copy("\n".join(lines), seen)


def _without_cut_copy(answer: str, said: set[str]) -> str:
    """``answer`` without a last sentence that is the start of an earlier one, cut off."""
    head, _, last = answer.rpartition("\n")
    sentences = split_sentences(last)
    if not sentences:
        return answer
    key = _key(sentences[-1])
    if len(key.split()) < REPEAT_WORDS or not any(
            other != key and other.startswith(key) for other in said):
        return answer
    kept = " ".join(sentences[:-1])
    kept = last[: len(last) - len(last.lstrip())] + kept if kept else ""
    return "\n".join(part for part in (head, kept) if part).rstrip()


def without_markup(answer: str) -> str:
    """``answer`` without the ``<passage ...>`` and ``<sub_answer ...>`` tags it copied."""
    lines = []
    for line in answer.split("\n"):
        if not _MARKUP.search(line):
            lines.append(line)
        elif bare := _MARKUP.sub(" ", line).strip():
            lines.append(bare)
    return "\n".join(lines).strip("\n")
