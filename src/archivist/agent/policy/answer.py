"""Answer checks, run before an answer is shown: a second look, years no passage names.

* :func:`needs_second_look`: an answer that abstains, or is nothing but a citation, over
  passages kept as relevant is read again once (the 1.5B model abstained with the answer
  in its second passage).
* :func:`years_not_covered`: an answer for a year no passage names is not kept (the 1.5B
  model answered "$9,000,000" for 2022 over a 2020 10-K).
* :func:`cites_the_subject`: an answer whose cited passages do not name what the question
  asks about is not kept (asked which GPU Archivist needs, the 1.5B answered with the
  Python version, a true and well-cited sentence about something else). A passage the
  writer saw that names a cited passage's section links it to the question: the first hop
  of a two-hop answer (:func:`linked_to`).
* :func:`leaps`: a claim whose cited passages come from more than one section, or do not
  name every subject of the question, rests on a join code cannot judge; on a small model
  it is put to the verification call (on the labelled set the 1.5B vetoed 5 of the 15
  unsupported claims the code passed, and 1 of the 52 supported ones).
* :func:`bridge_citations`: a sentence whose cited passages leave a subject of the question
  unnamed also cites the passages that link them to it (:func:`bridges`): the 1.5B model
  answered two-hop questions with the answer alone ("Old Norse [3]"), citing the second hop.
* :func:`quote_cited`: an answer that is only citations becomes the sentences of the units
  it cites (the 1.5B model replied "[3]" with the answer in unit 3, and wrote nothing).
* :func:`past_the_bridge`: a bare answer naming the thing a two-hop question describes
  becomes the sentence of that thing's own section that states what the question asks of
  it (asked for the painter's subjects, the 1.5B named the painter, his page before it).
* :func:`without_repeats`: a sentence said again is dropped (the 1.5B model wrote one
  sentence 36 times, until its reply cap).
* :func:`without_markup`: the prompt's own tags are taken out of an answer (the 1.5B model
  opened an answer with ``<passage n="1" section="Harwick, South Dorran">``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from archivist.agent.answer_kind import states_what_is_asked
from archivist.agent.citations import cite_again
from archivist.agent.claims import (
    defuse_citations,
    parse_citations,
    split_claims,
    strip_citations,
)
from archivist.agent.policy.bare import BARE_WORDS, bare_answer, states_enough
from archivist.agent.policy.evidence import (
    fully_on_subject,
    on_subject,
    subjects_in,
    subjects_named,
)
from archivist.agent.policy.question import asks_to_judge, subject_terms
from archivist.agent.prompts import abstains, says_nothing
from archivist.agent.state import Evidence
from archivist.agent.unit_split import split_sentences, text_sentences
from archivist.stopwords import content_words

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
#: The tags the prompts wrap data in: a model copying one must not show it to the user.
_MARKUP = re.compile(r"[ \t]*</?(?:passage|sub_answer)\b[^<>]*>[ \t]*")
#: Cited units an answer of citations alone is quoted from, at most.
QUOTED_UNITS = 2


def needs_second_look(answer: str, evidence: Iterable[Evidence]) -> bool:
    """Whether ``answer`` found nothing although some passage was kept as relevant."""
    if not answer or not (abstains(answer) or says_nothing(answer)):
        return False
    return any(e.get("grade") == "relevant" for e in evidence)


def years_not_covered(question: str, evidence: Iterable[Evidence]) -> tuple[list[str], list[str]]:
    """The years the question asks about that no passage names, and the years they name.

    Only when the passages name years, and none of the asked ones: "What were Brightwave's
    sales in 2022?" over a 2020 10-K's tables of 2018-2020 (the 1.5B answered
    "$9,000,000"). Empty lists when the question names no year or a passage has one.
    """
    asked = set(_YEAR.findall(question))
    named: set[str] = set()
    for item in evidence:
        named.update(_YEAR.findall(item.get("text", "")))
    if not asked or not named or asked & named:
        return [], []
    return sorted(asked), sorted(named)


def cites_the_subject(question: str, cited: list[Evidence],
                      seen: Iterable[Evidence] = ()) -> bool:
    """Whether the passages an answer cites name what the question asks about.

    Text, headings and document names count, and so do the passages of ``seen`` (those the
    writer was given) that link a cited one to the question (:func:`linked_to`). Up to two
    named subjects must all be named; of more ("Who is older, Lena Farrow or Dario Quist?")
    half, as for passages kept.
    """
    chain = [*cited, *linked_to(cited, seen)]
    if len(subject_terms(question)) <= 2:
        return fully_on_subject(question, chain)
    return on_subject(question, chain)


def leaps(question: str, cited: list[Evidence]) -> bool:
    """Whether a claim's cited passages span sections or leave a subject of ``question`` unnamed.

    Such a claim joins facts ("X was formed first", "the film shot there was directed by
    Y"), and word checks read joined units as one text, whoever each fact is about.
    """
    sections = {item.get("parent_id") for item in cited}
    return len(sections) > 1 or not fully_on_subject(question, cited)


def linked_to(cited: list[Evidence], seen: Iterable[Evidence]) -> list[Evidence]:
    """The passages of ``seen`` linked to a cited one: either names the other's section.

    A two-hop answer is stated by the passage on the bridge ("Edvin Halloran (born 1924)
    ..."), which names the bridge but not what the question asks about ("the man who
    stepped down as president of Korvath before the 1998 vote"); the passage that names
    both links it to the question. The other way round, a song "written after a festival in
    Tessendorf" is linked by the article "Tessendorf, Lower Korvath" to the district the
    question names. A title counts without its qualifier ("Tessendorf" of "Tessendorf,
    Lower Korvath"), as written and whole,
    and only in a passage of another section: a section's own sentences link nothing.
    """
    sections = {item.get("parent_id") for item in cited}
    others = [item for item in seen if item.get("parent_id") not in sections]
    cited_titles = _titles(cited)
    cited_text = " ".join(" ".join(item.get("text", "").split()) for item in cited)
    linked = []
    for item in others:
        text = " ".join(item.get("text", "").split())
        if (cited_titles and cited_titles.search(text)) or (
                (own := _titles([item])) and own.search(cited_text)):
            linked.append(item)
    return linked


#: Passages a claim's citations are completed with, at most: the hops of a two-hop question.
BRIDGE_UNITS = 2


def bridges(question: str, cited: Sequence[Evidence], seen: Sequence[Evidence],
            claim: str = "") -> list[int]:
    """The numbers (in ``seen``, from 1) of the passages that link ``cited`` to the question.

    A two-hop answer cites the passage that states it ("Jane Roe wrote in Old Norse") and
    leaves out the one that ties it to what was asked ("Book X is a novel by Jane Roe").
    The subjects wanted are those of the question that ``claim`` names, or all of them
    when it is a bare answer of at most :data:`BARE_WORDS` words naming none ("Old Norse"
    stands for "the answer to the question is Old Norse"); a sentence about something else
    ("She wrote a second book") needs no link to them. Of the passages
    :func:`linked_to` the cited ones, best match first, each that names a wanted subject
    the chain does not yet name is taken, until every wanted subject is named or
    :data:`BRIDGE_UNITS` are taken.
    """
    wanted = subjects_in(question, claim)
    if not wanted and len(claim.split()) <= BARE_WORDS:
        wanted = subject_terms(question)
    chain = list(cited)
    named = subjects_named(question, chain) & wanted
    if not chain or named == wanted:
        return []
    links = {id(item) for item in linked_to(chain, seen)}
    taken: list[int] = []
    for number, item in enumerate(seen, 1):
        if id(item) not in links:
            continue
        more = subjects_named(question, [*chain, item]) & wanted
        if more - named:
            chain.append(item)
            named = more
            taken.append(number)
        if named == wanted or len(taken) == BRIDGE_UNITS:
            break
    return taken


def bridge_citations(question: str, answer: str, units: Sequence[Evidence],
                     supported: Callable[[str, list[int]], bool]) -> tuple[str, int]:
    """``answer`` with each supported sentence citing the passages that link it to the question.

    ``supported(sentence, numbers)`` is the claim check. A sentence its own citations
    support, and that stays supported with the links added, cites them too
    (:func:`bridges`, for the subjects it names, or all when it names none); the reader
    can follow the chain from what was asked to the answer.
    Returns the answer and how many sentences were given links.
    """
    linked = 0
    for sentence, _ in split_claims(answer):
        own = [n for n in dict.fromkeys(parse_citations(sentence)) if 1 <= n <= len(units)]
        if not own or sentence not in answer:
            continue
        cited = [units[n - 1] for n in own]
        extra = [n for n in bridges(question, cited, units, strip_citations(sentence))
                 if n not in own]
        if extra and supported(sentence, own) and supported(sentence, [*own, *extra]):
            answer = cite_again(answer, sentence, [*own, *extra])
            linked += 1
    return answer, linked


def _titles(items: Iterable[Evidence]) -> re.Pattern[str] | None:
    """A pattern for the section titles of ``items`` (without qualifiers), or None."""
    titles = {title for item in items if len(title := _title(item)) >= 4}
    if not titles:
        return None
    return re.compile("|".join(rf"(?<!\w){re.escape(t)}(?!\w)" for t in sorted(titles)))


def quote_cited(question: str, answer: str, units: list[Evidence]) -> str:
    """The sentences of the units an answer of only citations cites, each cited; else "".

    From each of the first :data:`QUOTED_UNITS` units cited, the sentence (or table line)
    that states the kind of thing the question asks for (a year for "in what year", a
    number for "how many": :func:`states_what_is_asked`), then shares the most content
    words with it: a unit shown with the sentence before it for context ("Harbor Lights is
    an American television series ...") quotes its own ("The series was first aired by
    Falcon TV ...") on a tie. The answer says what the documents say, word for word, and
    the claim check reads it like any other.
    """
    if not says_nothing(answer):
        return ""
    asked = content_words(question)
    quoted: list[str] = []
    for number in [n for n in parse_citations(answer) if 1 <= n <= len(units)][:QUOTED_UNITS]:
        pieces = text_sentences(units[number - 1].get("text", ""))
        if not pieces:
            continue
        best = defuse_citations(max(reversed(pieces), key=lambda s: (
            states_what_is_asked(question, s), len(asked & content_words(s)))))
        if best not in " ".join(quoted):
            quoted.append(f"{best} [{number}]")
    return " ".join(quoted)


def past_the_bridge(question: str, answer: str, units: Sequence[Evidence]) -> str:
    """The sentence of a bare answer's own section that states what the question asks; else "".

    A two-hop question describes its bridge and asks something of it ("Guest lecturers
    at the Academy include a sculptor famed for her studies of what?"). A small model
    answers with the bridge itself ("Ilse Tarrow [1]", from "Guest lecturers included
    ... the sculptor Ilse Tarrow"), even with the sculptor's own page before it ("...
    sculptor famed for her bronze studies of seabirds"). The answer is
    read as the bridge when it is bare (at most :data:`BARE_WORDS` words, naming nothing
    the question names), a unit of another section than the cited ones is titled with it,
    and one sentence there states ``bare.BRIDGE_OPEN_WORDS``, and half, of the question's
    words the cited units and the answer leave unstated. That sentence, cited, is the
    answer: what the documents say of the bridge, word for word (after the bridge's name,
    unless it names it), cited and checked like any other.
    """
    claims = split_claims(answer)
    if len(claims) != 1 or asks_to_judge(question):
        return ""
    sentence, numbers = claims[0]
    named = bare_answer(sentence, question)
    cited = [units[n - 1] for n in numbers if 1 <= n <= len(units)]
    if not cited or not named:
        return ""
    open_words = (content_words(question) - content_words(named)
                  - content_words(" ".join(item.get("text", "") for item in cited)))
    sections = {item.get("parent_id") for item in cited}
    best, best_number, best_held = "", 0, 0
    for number, item in enumerate(units, 1):
        if item.get("parent_id") in sections or _title(item).lower() != named.lower():
            continue
        for piece in text_sentences(item.get("text", "")):
            held = len(open_words & content_words(piece))
            if held > best_held:
                best, best_number, best_held = piece, number, held
    if not states_enough(best_held, len(open_words)):
        return ""
    said = best if named.lower() in best.lower() else f"{named}: {best}"  # "She is ..."
    return f"{defuse_citations(said)} [{best_number}]"


def _title(item: Evidence) -> str:
    """A passage's section title without its qualifier ("Faye" of "Faye (singer)")."""
    headings = item.get("heading_path") or [""]
    return re.sub(r"\s*(?:\(.*\)|,.*)$", "", " ".join(headings[-1].split()))


#: Words a sentence needs for a second saying of it to count as a repeat.
REPEAT_WORDS = 3


def without_repeats(answer: str) -> str:
    """``answer`` with each sentence said once.

    A later saying of a sentence (its words, whatever its citations) is dropped, and so is
    a last sentence that is the start of an earlier one: a copy the reply cap cut off. Lines
    with no repeat, headings, tables and code are kept as they are.
    """
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
            key = " ".join(re.findall(r"\w+", strip_citations(sentence).lower()))
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
    key = " ".join(re.findall(r"\w+", strip_citations(sentences[-1]).lower()))
    if len(key.split()) < REPEAT_WORDS or not any(
            other != key and other.startswith(key) for other in said):
        return answer
    kept = " ".join(sentences[:-1])
    kept = last[: len(last) - len(last.lstrip())] + kept if kept else ""
    return "\n".join(part for part in (head, kept) if part).rstrip()


def without_markup(answer: str) -> str:
    """``answer`` without the ``<passage ...>`` and ``<sub_answer ...>`` tags it copied.

    The text inside stays; a tag between two words leaves a space, a line that was only a
    tag goes, and lines without a tag stay as written.
    """
    lines = []
    for line in answer.split("\n"):
        if not _MARKUP.search(line):
            lines.append(line)
        elif bare := _MARKUP.sub(" ", line).strip():
            lines.append(bare)
    return "\n".join(lines).strip("\n")
